"""Reads an `export --parquet` directory back with pyarrow and with DuckDB and prints JSON:
every row of every file (pyarrow), each file's schema-version metadata, and per-layer frame
and janky counts computed by DuckDB over the glob the docs give."""
import json
import pathlib
import sys

import duckdb
import pyarrow.parquet as pq

out = pathlib.Path(sys.argv[1])
doc = {"files": {}, "duckdb": {}}
for table in ("frames", "summary"):
    for f in sorted((out / table).glob("*.parquet")):
        t = pq.read_table(f)
        meta = pq.read_metadata(f).metadata or {}
        doc["files"][f"{table}/{f.name}"] = {
            "version": (meta.get(b"frameprobe.schema_version") or b"").decode(),
            "columns": t.column_names,
            "types": [str(x) for x in t.schema.types],
            "rows": [list(r.values()) for r in t.to_pylist()],
        }
frames = f"read_parquet('{out}/frames/*.parquet')"
summary = f"read_parquet('{out}/summary/*.parquet')"
doc["duckdb"]["frames_by_layer"] = duckdb.sql(
    f"SELECT trace_path, pid, coalesce(layer, ''), count(*), count(*) FILTER (WHERE janky) "
    f"FROM {frames} GROUP BY ALL ORDER BY ALL"
).fetchall()
doc["duckdb"]["summary"] = duckdb.sql(
    f"SELECT trace_path, pid, coalesce(layer, ''), frames, janky FROM {summary} ORDER BY ALL"
).fetchall()
json.dump(doc, sys.stdout)
