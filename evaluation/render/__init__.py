"""Rendering a computed report: files (JSON, CSV, LaTeX), the paper tables, the figures and the page content (pure)."""
