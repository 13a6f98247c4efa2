-- frameprobe's implementation of the Perfetto stdlib module android.binder (v58.2): same
-- names, columns (in the same order) and semantics, in plain SQLite. Perfetto's macros,
-- table functions and SPAN_JOIN are rewritten as joins. Built on demand, once per
-- connection.
--
-- Also created here, as INCLUDE PERFETTO MODULE android.binder makes them visible in
-- trace_processor: android_process_metadata (module android.process_metadata, created only
-- if no other module made it).
--
-- Not provided: the pprof graph functions (android_binder_outgoing_graph,
-- android_binder_incoming_graph, android_binder_graph), and the monotonic durations of
-- android_binder_txns are NULL: trace_processor derives them from the clock_snapshot table
-- (to_monotonic), which frameprobe does not build.

-- android.process_metadata ------------------------------------------------------------

-- frameprobe does not import packages_list or the Android user list yet: empty tables of
-- trace_processor's shape keep the SQL below Perfetto's (an importer's table, once it
-- exists, takes their place).
CREATE TABLE IF NOT EXISTS package_list(
  id INTEGER PRIMARY KEY, package_name TEXT, uid INTEGER, debuggable INTEGER,
  profileable_from_shell INTEGER, version_code INTEGER);
CREATE TABLE IF NOT EXISTS __intrinsic_android_user_list(
  id INTEGER PRIMARY KEY, android_user_id INTEGER, type TEXT);

CREATE TABLE IF NOT EXISTS android_process_metadata AS
WITH
  uid_package_count AS (SELECT uid, count(1) AS cnt FROM package_list GROUP BY 1),
  kernel_tasks AS (
    SELECT a.upid
    FROM process AS a
    LEFT JOIN process AS b ON a.parent_upid = b.upid
    WHERE b.name = 'kthreadd' OR a.pid = 0 OR b.pid = 0
  ),
  -- The uid a package is installed under: SDK sandbox and PCC processes have app ids
  -- offset from their package's (Perfetto's _app_id_to_base_package).
  with_base_uid AS (
    SELECT process.*,
      CASE
        WHEN android_appid < 20000 THEN android_appid
        WHEN android_appid < 30000 THEN android_appid - 10000
        WHEN android_appid < 40000 THEN android_appid - 20000
        ELSE android_appid
      END AS base_uid
    FROM process
  ),
  with_count AS (
    SELECT b.*, upc.cnt
    FROM with_base_uid AS b
    LEFT JOIN uid_package_count AS upc ON b.base_uid = upc.uid
  ),
  -- Perfetto's _android_package_for_process: of the packages of the process's uid (any,
  -- when the uid has one package; else those whose name prefixes the process name) or,
  -- for isolated processes, of the packages prefixing the process name, the closest in
  -- length to the process name.
  with_package AS (
    SELECT w.*,
      (SELECT p.id
       FROM package_list AS p
       WHERE (w.base_uid = p.uid AND (w.cnt = 1 OR w.name GLOB p.package_name || '*'))
         OR (w.base_uid >= 90000 AND w.base_uid < 100000
             AND str_split(w.name, ':', 0) GLOB p.package_name || '*')
       ORDER BY length(w.name) - length(p.package_name), p.id
       LIMIT 1) AS package_id
    FROM with_count AS w
  )
SELECT
  w.upid,
  w.pid,
  -- b/169226092: a racy capture can leave the 15-character comm as the name.
  CASE
    WHEN length(w.name) = 15
      AND (w.cmdline IN ('zygote', 'zygote64', '<pre-initialized>')
        OR w.cmdline GLOB '*' || w.name) THEN w.cmdline
    ELSE w.name
  END AS process_name,
  w.android_appid AS uid,
  w.android_user_id AS user_id,
  u.type AS user_type,
  CASE WHEN w.cnt > 1 THEN TRUE ELSE NULL END AS shared_uid,
  plist.package_name,
  plist.version_code,
  plist.debuggable,
  EXISTS (SELECT 1 FROM kernel_tasks AS k WHERE k.upid = w.upid) AS is_kernel_task
FROM with_package AS w
LEFT JOIN package_list AS plist ON plist.id = w.package_id
LEFT JOIN __intrinsic_android_user_list AS u ON w.android_user_id = u.android_user_id
ORDER BY w.upid;

-- android.binder ------------------------------------------------------------------------

-- Count Binder transactions per process.
CREATE VIEW android_binder_metrics_by_process AS
SELECT
  process.name AS process_name,
  process.pid AS pid,
  slice.name AS slice_name,
  count(*) AS event_count
FROM slice
JOIN thread_track ON slice.track_id = thread_track.id
JOIN thread ON thread.utid = thread_track.utid
JOIN process ON thread.upid = process.upid
WHERE slice.name GLOB 'binder*'
GROUP BY process_name, slice_name;

-- Synchronous transactions: each client `binder transaction` with the `binder reply` its
-- flow leads to, and the server's AIDL slice inside the reply, when there is one.
CREATE TABLE _binder_txn_merged AS
WITH
  -- Transactions with children may be broken (a synchronous call sleeps while it
  -- waits)...
  maybe_broken_binder_txn AS (
    SELECT ancestor.id
    FROM slice
    JOIN slice AS ancestor ON ancestor.id = slice.parent_id
    WHERE ancestor.name = 'binder transaction'
    GROUP BY ancestor.id
  ),
  -- ...unless they lead somewhere: Perfetto's _slice_following_flow! keeps exactly the
  -- starting slices that have an outgoing flow.
  nested_binder_txn AS (
    SELECT DISTINCT flow.slice_out AS id
    FROM flow JOIN maybe_broken_binder_txn AS m ON flow.slice_out = m.id
  ),
  broken_binder_txn AS (
    SELECT * FROM maybe_broken_binder_txn
    EXCEPT
    SELECT * FROM nested_binder_txn
  ),
  binder_txn AS MATERIALIZED (
    SELECT
      slice.id AS binder_txn_id,
      process.name AS process_name,
      thread.name AS thread_name,
      thread.utid AS utid,
      thread.tid AS tid,
      process.pid AS pid,
      process.upid AS upid,
      slice.ts,
      slice.dur,
      thread.is_main_thread
    FROM slice
    JOIN thread_track ON slice.track_id = thread_track.id
    JOIN thread USING (utid)
    JOIN process USING (upid)
    LEFT JOIN broken_binder_txn ON broken_binder_txn.id = slice.id
    WHERE slice.name = 'binder transaction' AND broken_binder_txn.id IS NULL
  ),
  binder_reply AS (
    SELECT
      binder_txn.*,
      binder_reply.ts AS server_ts,
      binder_reply.dur AS server_dur,
      binder_reply.id AS binder_reply_id,
      reply_thread.name AS server_thread,
      reply_process.name AS server_process,
      reply_thread.utid AS server_utid,
      reply_thread.tid AS server_tid,
      reply_process.pid AS server_pid,
      reply_process.upid AS server_upid,
      aidl.name AS aidl_name,
      aidl.ts AS aidl_ts,
      aidl.dur AS aidl_dur
    FROM binder_txn
    JOIN flow AS binder_flow ON binder_txn.binder_txn_id = binder_flow.slice_out
    JOIN slice AS binder_reply ON binder_flow.slice_in = binder_reply.id
    JOIN thread_track AS reply_thread_track ON binder_reply.track_id = reply_thread_track.id
    JOIN thread AS reply_thread ON reply_thread.utid = reply_thread_track.utid
    JOIN process AS reply_process ON reply_process.upid = reply_thread.upid
    -- Only server side AIDL slices: cpp clients have AIDL slices too.
    LEFT JOIN slice AS aidl
      ON aidl.parent_id = binder_reply.id
      AND (aidl.name GLOB 'AIDL::*Server'
        OR aidl.name GLOB 'AIDL::*server'
        OR aidl.name GLOB 'HIDL::*server')
  )
SELECT
  min(aidl_name) AS aidl_name,
  aidl_ts,
  aidl_dur,
  binder_txn_id,
  process_name AS client_process,
  thread_name AS client_thread,
  upid AS client_upid,
  utid AS client_utid,
  tid AS client_tid,
  pid AS client_pid,
  is_main_thread,
  ts AS client_ts,
  dur AS client_dur,
  binder_reply_id,
  server_process,
  server_thread,
  server_upid,
  server_utid,
  server_tid,
  server_pid,
  server_ts,
  server_dur
FROM binder_reply
WHERE client_dur != -1 AND server_dur != -1 AND client_dur >= server_dur
GROUP BY process_name, thread_name, binder_txn_id, binder_reply_id;

CREATE TABLE _oom_score AS
SELECT
  process.upid,
  CAST(c.value AS INT) AS value,
  c.ts,
  coalesce(lead(ts) OVER (PARTITION BY upid ORDER BY ts), trace_end()) AS end_ts
FROM counter AS c
JOIN process_counter_track AS t ON c.track_id = t.id
JOIN process USING (upid)
WHERE t.name = 'oom_score_adj';
CREATE INDEX _oom_score_idx ON _oom_score(upid, ts);

-- Synchronous transactions with the oom scores of both ends.
CREATE VIEW _sync_binder_metrics_by_txn AS
SELECT
  binder.*,
  client_oom.value AS client_oom_score,
  server_oom.value AS server_oom_score
FROM _binder_txn_merged AS binder
LEFT JOIN _oom_score AS client_oom
  ON binder.client_upid = client_oom.upid
  AND binder.client_ts BETWEEN client_oom.ts AND client_oom.end_ts
LEFT JOIN _oom_score AS server_oom
  ON binder.server_upid = server_oom.upid
  AND binder.server_ts BETWEEN server_oom.ts AND server_oom.end_ts;

CREATE VIEW _binder_txn AS
SELECT client_ts AS ts, client_dur AS dur, client_utid AS utid, *
FROM _sync_binder_metrics_by_txn;

CREATE VIEW _binder_reply AS
SELECT server_ts AS ts, server_dur AS dur, server_utid AS utid, *
FROM _sync_binder_metrics_by_txn;

-- Perfetto's SPAN_JOIN(_binder_txn PARTITIONED utid, thread_state PARTITIONED utid): the
-- overlaps of each transaction with the thread's states. Spans are [start, end); a span
-- with dur -1 counts as ending where it starts; the duration uses the raw ends.
CREATE VIEW _sp_binder_txn_thread_state AS
SELECT
  max(b.ts, s.ts) AS ts,
  min(b.ts + b.dur, s.ts + s.dur) - max(b.ts, s.ts) AS dur,
  b.utid,
  b.binder_txn_id, b.client_ts, b.client_tid, b.binder_reply_id, b.server_ts, b.server_tid,
  s.state, s.blocked_function
FROM _binder_txn AS b
JOIN thread_state AS s
  ON s.utid = b.utid
  AND ((s.ts = b.ts)
    OR (b.ts > s.ts AND b.ts < iif(s.dur = -1, s.ts, s.ts + s.dur))
    OR (s.ts > b.ts AND s.ts < iif(b.dur = -1, b.ts, b.ts + b.dur)));

CREATE VIEW _sp_binder_reply_thread_state AS
SELECT
  max(b.ts, s.ts) AS ts,
  min(b.ts + b.dur, s.ts + s.dur) - max(b.ts, s.ts) AS dur,
  b.utid,
  b.binder_txn_id, b.client_ts, b.client_tid, b.binder_reply_id, b.server_ts, b.server_tid,
  s.state, s.blocked_function
FROM _binder_reply AS b
JOIN thread_state AS s
  ON s.utid = b.utid
  AND ((s.ts = b.ts)
    OR (b.ts > s.ts AND b.ts < iif(s.dur = -1, s.ts, s.ts + s.dur))
    OR (s.ts > b.ts AND s.ts < iif(b.dur = -1, b.ts, b.ts + b.dur)));

-- Aggregated thread states of the client ('binder_txn') and server ('binder_reply') side
-- of each synchronous transaction.
CREATE VIEW android_sync_binder_thread_state_by_txn AS
SELECT
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid,
  'binder_txn' AS thread_state_type,
  state AS thread_state,
  sum(dur) AS thread_state_dur,
  count(dur) AS thread_state_count
FROM _sp_binder_txn_thread_state
GROUP BY binder_txn_id, binder_reply_id, thread_state_type, thread_state
UNION ALL
SELECT
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid,
  'binder_reply' AS thread_state_type,
  state AS thread_state,
  sum(dur) AS thread_state_dur,
  count(dur) AS thread_state_count
FROM _sp_binder_reply_thread_state
GROUP BY binder_txn_id, binder_reply_id, thread_state_type, thread_state;

-- Aggregated kernel blocked functions of both sides of each synchronous transaction.
CREATE VIEW android_sync_binder_blocked_functions_by_txn AS
SELECT
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid,
  'binder_txn' AS thread_state_type,
  blocked_function,
  sum(dur) AS blocked_function_dur,
  count(dur) AS blocked_function_count
FROM _sp_binder_txn_thread_state
WHERE blocked_function IS NOT NULL
GROUP BY binder_txn_id, binder_reply_id, blocked_function
UNION ALL
SELECT
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid,
  'binder_reply' AS thread_state_type,
  blocked_function,
  sum(dur) AS blocked_function_dur,
  count(dur) AS blocked_function_count
FROM _sp_binder_reply_thread_state
WHERE blocked_function IS NOT NULL
GROUP BY binder_txn_id, binder_reply_id, blocked_function;

-- Oneway receptions and server AIDL slices, each with the next one on its thread (the
-- AIDL method a oneway call ran follows its `binder async rcv`).
CREATE TABLE _async_binder_reply AS
WITH
  async_reply AS MATERIALIZED (
    SELECT id, ts, dur, track_id, name
    FROM slice
    WHERE name GLOB 'AIDL::*Server'
      OR name GLOB 'AIDL::*server'
      OR name GLOB 'HIDL::*server'
      OR name = 'binder async rcv'
  )
SELECT
  *,
  lead(name) OVER (PARTITION BY track_id ORDER BY ts, id) AS next_name,
  lead(ts) OVER (PARTITION BY track_id ORDER BY ts, id) AS next_ts,
  lead(dur) OVER (PARTITION BY track_id ORDER BY ts, id) AS next_dur
FROM async_reply
ORDER BY id;

CREATE TABLE _binder_async_txn_raw AS
SELECT
  slice.id AS binder_txn_id,
  process.name AS client_process,
  thread.name AS client_thread,
  process.upid AS client_upid,
  thread.utid AS client_utid,
  thread.tid AS client_tid,
  process.pid AS client_pid,
  thread.is_main_thread,
  slice.ts AS client_ts,
  slice.dur AS client_dur
FROM slice
JOIN thread_track ON slice.track_id = thread_track.id
JOIN thread USING (utid)
JOIN process USING (upid)
WHERE slice.name = 'binder transaction async'
ORDER BY binder_txn_id;

CREATE TABLE _binder_async_txn AS
SELECT
  iif(binder_reply.next_name = 'binder async rcv', NULL, binder_reply.next_name) AS aidl_name,
  iif(binder_reply.next_name = 'binder async rcv', NULL, binder_reply.next_ts) AS aidl_ts,
  iif(binder_reply.next_name = 'binder async rcv', NULL, binder_reply.next_dur) AS aidl_dur,
  binder_txn.*,
  binder_reply.id AS binder_reply_id,
  reply_process.name AS server_process,
  reply_thread.name AS server_thread,
  reply_process.upid AS server_upid,
  reply_thread.utid AS server_utid,
  reply_thread.tid AS server_tid,
  reply_process.pid AS server_pid,
  binder_reply.ts AS server_ts,
  binder_reply.dur AS server_dur
FROM _binder_async_txn_raw AS binder_txn
JOIN flow AS binder_flow ON binder_txn.binder_txn_id = binder_flow.slice_out
JOIN _async_binder_reply AS binder_reply ON binder_flow.slice_in = binder_reply.id
JOIN thread_track AS reply_thread_track ON binder_reply.track_id = reply_thread_track.id
JOIN thread AS reply_thread ON reply_thread.utid = reply_thread_track.utid
JOIN process AS reply_process ON reply_process.upid = reply_thread.upid
WHERE binder_reply.name = 'binder async rcv'
ORDER BY binder_txn_id;

-- Oneway transactions with the oom scores of both ends.
CREATE VIEW _async_binder_metrics_by_txn AS
SELECT
  binder.*,
  client_oom.value AS client_oom_score,
  server_oom.value AS server_oom_score
FROM _binder_async_txn AS binder
LEFT JOIN _oom_score AS client_oom
  ON binder.client_upid = client_oom.upid
  AND binder.client_ts BETWEEN client_oom.ts AND client_oom.end_ts
LEFT JOIN _oom_score AS server_oom
  ON binder.server_upid = server_oom.upid
  AND binder.server_ts BETWEEN server_oom.ts AND server_oom.end_ts;

-- Every binder transaction, synchronous and oneway, with both of its ends.
CREATE TABLE android_binder_txns AS
WITH
  all_binder AS (
    SELECT *, 1 AS is_sync FROM _sync_binder_metrics_by_txn
    UNION ALL
    SELECT *, 0 AS is_sync FROM _async_binder_metrics_by_txn
  )
SELECT
  str_split(aidl_name, '::', 2) AS interface,
  str_split(aidl_name, '::', 3) AS method_name,
  all_binder.*,
  NULL AS client_monotonic_dur,
  NULL AS server_monotonic_dur,
  client_process_metadata.version_code AS client_package_version_code,
  server_process_metadata.version_code AS server_package_version_code,
  client_process_metadata.debuggable AS is_client_package_debuggable,
  server_process_metadata.debuggable AS is_server_package_debuggable
FROM all_binder
LEFT JOIN android_process_metadata AS client_process_metadata
  ON all_binder.client_upid = client_process_metadata.upid
LEFT JOIN android_process_metadata AS server_process_metadata
  ON all_binder.server_upid = server_process_metadata.upid
ORDER BY binder_txn_id;
