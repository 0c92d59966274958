"""Pure metrics and statistics of the report (SPEC 3-8): plain data in, plain data out, no database."""
