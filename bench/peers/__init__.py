"""Relate against peer databases (FalkorDB, Kuzu) and raw library floors, in one interleaved run."""
