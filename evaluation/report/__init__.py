"""The report pipeline: its inputs as DataFrames and the computation of the whole report (pure, no database)."""
