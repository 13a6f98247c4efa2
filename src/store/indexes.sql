-- Built after the load. Only small tables get an index up front: building indexes on the
-- large event tables costs more than most queries need (SQLite builds an automatic index
-- for a query that joins on an unindexed column).
CREATE INDEX __thread_upid ON __intrinsic_thread(upid);
CREATE INDEX __args_set ON __intrinsic_args(arg_set_id);
