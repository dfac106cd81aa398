"""Reading external files into statements: ``LOAD CSV`` sources (CSV, gzip, Parquet, Arrow IPC)
confined to a configured import directory."""
