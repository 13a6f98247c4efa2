-- frameprobe's implementation of the Perfetto stdlib modules android.critical_blocking_calls,
-- android.cujs.base (the CUJ and frame tables the blocking-call aggregation needs) and
-- android.frame_blocking_calls.blocking_calls_aggregation (v58.2): same table names, columns
-- and semantics. The relevance rule `_is_relevant_blocking_call` and
-- `android_standardize_slice_name` are Rust functions shared with `analyze`'s causes
-- (src/analysis/causes/categories.rs, src/analysis/slice_name.rs).
--
-- Not provided from android.cujs.base: android_jank_cuj, android_jank_cuj_layer_name and the
-- boundary tables of android.cujs.boundaries.

-- android.critical_blocking_calls ------------------------------------------------------

CREATE TABLE IF NOT EXISTS _android_critical_blocking_calls AS
SELECT
  android_standardize_slice_name(s.name) AS name,
  s.ts, s.dur, s.id, s.process_name, thread.utid, s.upid, s.ts + s.dur AS ts_end
FROM thread_slice AS s
JOIN thread USING (utid)
WHERE _is_relevant_blocking_call(s.name, s.depth)
UNION ALL
-- drawLayer slices once more, summed without the layer's name.
SELECT 'drawLayer' AS name, s.ts, s.dur, s.id, s.process_name, thread.utid, s.upid,
  s.ts + s.dur AS ts_end
FROM thread_slice AS s
JOIN thread USING (utid)
WHERE s.name GLOB 'drawLayer *'
UNION ALL
-- Synchronous binder calls under their AIDL method (android_binder_txns).
SELECT tx.aidl_name AS name, tx.client_ts AS ts, tx.client_dur AS dur,
  tx.binder_txn_id AS id, tx.client_process AS process_name, tx.client_utid AS utid,
  tx.client_upid AS upid, tx.client_ts + tx.client_dur AS ts_end
FROM android_binder_txns AS tx
WHERE NOT (aidl_name IS NULL) AND is_sync = 1;
