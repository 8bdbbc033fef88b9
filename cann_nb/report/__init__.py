"""Rendering of profiles as static text/HTML (notebook fallback) and self-contained reports."""
