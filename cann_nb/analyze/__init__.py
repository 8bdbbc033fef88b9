"""Pure functions on Profile tables that return DataFrames. Never plots, never prints."""
