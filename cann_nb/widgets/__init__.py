"""anywidget views of a Profile (front-end source in js/)."""
