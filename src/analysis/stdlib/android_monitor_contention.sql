-- frameprobe's implementation of the Perfetto stdlib module android.monitor_contention:
-- Java monitor contention slices ("monitor contention with owner ...") parsed into blocking
-- and blocked threads and methods, their chains, and the blocking thread's states. Same
-- names, columns and semantics as trace_processor v58.2. The name parsers are the
-- android_extract_android_monitor_contention_* functions (src/analysis/monitor_contention_name.rs);
-- SPAN_JOIN is replaced by a join on __span_join_overlaps (src/analysis/span_join.rs).
-- monotonic_dur is dur: frameprobe keeps no clock snapshots to convert to MONOTONIC.

-- A contention slice is valid when it has no children, or a 'Lock contention*' (or
-- unnamed) child without grandchildren (or with an unnamed one), as upstream's
-- LEFT JOIN slice / child / grand_child filter.
CREATE TABLE __valid_android_monitor_contention AS
  WITH contention AS (SELECT id FROM slice WHERE name GLOB 'monitor contention*'),
  child AS (
    SELECT id, parent_id, name FROM slice WHERE parent_id IN (SELECT id FROM contention)),
  grand_child AS (
    SELECT parent_id, name FROM slice WHERE parent_id IN (SELECT id FROM child))
  SELECT c.id
  FROM contention c
  LEFT JOIN child ON child.parent_id = c.id
  LEFT JOIN grand_child ON grand_child.parent_id = child.id
  WHERE (child.name GLOB 'Lock contention*' OR child.name IS NULL)
    AND grand_child.name IS NULL
  GROUP BY c.id;
CREATE INDEX __valid_amc_id ON __valid_android_monitor_contention(id);

-- The lock name comes from the '<lock>_lock_acquire' slice just before the contention and
-- the '<lock>_lock_held' slice just after it (or after its 'Lock contention' child) on the
-- same track.
CREATE TABLE __android_monitor_contention_lock_name AS
  WITH on_tracks AS (
    SELECT s.id, s.name,
           lag(s.name) OVER w AS prev_name,
           lead(s.name, 1) OVER w AS next_name_1,
           lead(s.name, 2) OVER w AS next_name_2
    FROM slice s
    WHERE s.track_id IN (
      SELECT DISTINCT track_id FROM slice
      WHERE id IN (SELECT id FROM __valid_android_monitor_contention))
    WINDOW w AS (PARTITION BY s.track_id ORDER BY s.ts))
  SELECT id,
         CASE
           WHEN substr(next_name_1, -10) = '_lock_held'
            AND substr(prev_name, -13) = '_lock_acquire'
            AND replace(prev_name, '_lock_acquire', '') = replace(next_name_1, '_lock_held', '')
             THEN replace(prev_name, '_lock_acquire', '')
           WHEN substr(next_name_1, 1, 15) = 'Lock contention'
            AND substr(next_name_2, -10) = '_lock_held'
            AND substr(prev_name, -13) = '_lock_acquire'
            AND replace(prev_name, '_lock_acquire', '') = replace(next_name_2, '_lock_held', '')
             THEN replace(prev_name, '_lock_acquire', '')
         END AS lock_name
  FROM on_tracks
  WHERE id IN (SELECT id FROM __valid_android_monitor_contention);
CREATE INDEX __amc_lock_name_id ON __android_monitor_contention_lock_name(id);

-- 'binder reply' ancestors of the contention slices (upstream: ancestor_slice()).
CREATE TABLE __android_monitor_contention_binder_reply AS
  WITH RECURSIVE up(contention_id, id, parent_id, name, ts, track_id) AS (
    SELECT v.id, p.id, p.parent_id, p.name, p.ts, p.track_id
    FROM __valid_android_monitor_contention v
    JOIN slice s ON s.id = v.id
    JOIN slice p ON p.id = s.parent_id
    UNION ALL
    SELECT up.contention_id, p.id, p.parent_id, p.name, p.ts, p.track_id
    FROM up JOIN slice p ON p.id = up.parent_id)
  SELECT contention_id, id, ts, track_id FROM up WHERE name = 'binder reply';
CREATE INDEX __amc_binder_reply_id ON __android_monitor_contention_binder_reply(contention_id);

CREATE TABLE android_monitor_contention AS
  SELECT
    android_extract_android_monitor_contention_blocking_method(slice.name) AS blocking_method,
    android_extract_android_monitor_contention_blocked_method(slice.name) AS blocked_method,
    android_extract_android_monitor_contention_short_blocking_method(slice.name) AS short_blocking_method,
    android_extract_android_monitor_contention_short_blocked_method(slice.name) AS short_blocked_method,
    android_extract_android_monitor_contention_blocking_src(slice.name) AS blocking_src,
    android_extract_android_monitor_contention_blocked_src(slice.name) AS blocked_src,
    android_extract_android_monitor_contention_waiter_count(slice.name) AS waiter_count,
    thread.utid AS blocked_utid,
    thread.name AS blocked_thread_name,
    blocking_thread.utid AS blocking_utid,
    android_extract_android_monitor_contention_blocking_thread(slice.name) AS blocking_thread_name,
    android_extract_android_monitor_contention_blocking_tid(slice.name) AS blocking_tid,
    thread.upid AS upid,
    process.name AS process_name,
    slice.id,
    slice.ts,
    slice.dur,
    slice.dur AS monotonic_dur,
    slice.track_id,
    thread.is_main_thread AS is_blocked_thread_main,
    thread.tid AS blocked_thread_tid,
    blocking_thread.is_main_thread AS is_blocking_thread_main,
    blocking_thread.tid AS blocking_thread_tid,
    binder_reply.id AS binder_reply_id,
    binder_reply.ts AS binder_reply_ts,
    binder_reply_thread.tid AS binder_reply_tid,
    process.pid,
    cln.lock_name
  FROM __valid_android_monitor_contention v
  JOIN slice ON slice.id = v.id
  JOIN thread_track ON thread_track.id = slice.track_id
  LEFT JOIN thread USING (utid)
  LEFT JOIN process USING (upid)
  LEFT JOIN __android_monitor_contention_binder_reply binder_reply
    ON binder_reply.contention_id = slice.id
  LEFT JOIN thread_track binder_reply_thread_track
    ON binder_reply.track_id = binder_reply_thread_track.id
  LEFT JOIN thread binder_reply_thread
    ON binder_reply_thread_track.utid = binder_reply_thread.utid
  -- Before Android U the name has no owner tid: the contention is kept without its edge.
  LEFT JOIN thread blocking_thread
    ON blocking_thread.tid = blocking_tid AND blocking_thread.upid = thread.upid
  LEFT JOIN __android_monitor_contention_lock_name cln ON cln.id = slice.id
  WHERE slice.dur != -1
    AND short_blocking_method IS NOT NULL
    AND short_blocked_method IS NOT NULL
  GROUP BY slice.id
  ORDER BY slice.id;
CREATE INDEX __amc_id ON android_monitor_contention(id);
CREATE INDEX __amc_blocking_utid ON android_monitor_contention(blocking_utid, ts);
CREATE INDEX __amc_blocked_utid ON android_monitor_contention(blocked_utid);

-- Contentions blocked by another contention (one row per blocking parent).
CREATE TABLE __android_monitor_contention_children AS
  SELECT parent.id AS parent_id, child.*
  FROM android_monitor_contention child
  JOIN android_monitor_contention parent
    ON parent.blocked_utid = child.blocking_utid
   AND child.ts BETWEEN parent.ts AND parent.ts + parent.dur
  ORDER BY child.id;
CREATE INDEX __amc_children_id ON __android_monitor_contention_children(id);

-- One representative child (the lowest id) of each blocking contention.
CREATE TABLE __android_monitor_contention_child_of AS
  SELECT parent.id AS id, min(child.id) AS child_id
  FROM android_monitor_contention parent
  JOIN android_monitor_contention child
    ON parent.blocked_utid = child.blocking_utid
   AND child.ts BETWEEN parent.ts AND parent.ts + parent.dur
  GROUP BY parent.id
  ORDER BY id;
CREATE INDEX __amc_child_of_id ON __android_monitor_contention_child_of(id);

CREATE TABLE android_monitor_contention_chain AS
  SELECT pc.parent_id AS parent_id, amc.blocking_method, amc.blocked_method,
         amc.short_blocking_method, amc.short_blocked_method, amc.blocking_src,
         amc.blocked_src, amc.waiter_count, amc.blocked_utid, amc.blocked_thread_name,
         amc.blocking_utid, amc.blocking_thread_name, amc.blocking_tid, amc.upid,
         amc.process_name, amc.id, amc.ts, amc.dur, amc.monotonic_dur, amc.track_id,
         amc.is_blocked_thread_main, amc.blocked_thread_tid, amc.is_blocking_thread_main,
         amc.blocking_thread_tid, amc.binder_reply_id, amc.binder_reply_ts,
         amc.binder_reply_tid, amc.pid, co.child_id AS child_id, amc.lock_name
  FROM android_monitor_contention amc
  LEFT JOIN __android_monitor_contention_children pc USING (id)
  LEFT JOIN __android_monitor_contention_child_of co USING (id);
CREATE INDEX __amc_chain_key ON android_monitor_contention_chain(blocking_method, blocking_utid, ts);

-- The first waiter on a lock (waiter_count = 0), its span cut at the end of the earliest
-- contention on the same blocking thread and method that it covers.
CREATE VIEW __android_monitor_contention_first_blocked AS
  SELECT start.id, start.blocking_utid, start.ts, min(e.ts + e.dur) - start.ts AS dur
  FROM android_monitor_contention_chain start
  JOIN android_monitor_contention_chain e
    ON start.blocking_utid = e.blocking_utid
   AND start.blocking_method = e.blocking_method
   AND e.ts BETWEEN start.ts AND start.ts + start.dur
  WHERE start.waiter_count = 0
  GROUP BY start.id;

-- SPAN_JOIN of the first waiters with the blocking thread's thread states. First waiters
-- on one blocking thread can overlap: the ends_before / ends_by / prev_end conditions keep
-- only the pairs SPAN_JOIN's single walk meets (see src/analysis/span_join.rs).
CREATE TABLE android_monitor_contention_chain_thread_state AS
  WITH c AS (
    SELECT id, blocking_utid, ts, dur,
           max(iif(dur = -1, ts, ts + dur)) OVER (
             PARTITION BY blocking_utid ORDER BY ts
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ends_before,
           max(iif(dur = -1, ts, ts + dur)) OVER (
             PARTITION BY blocking_utid ORDER BY ts ROWS UNBOUNDED PRECEDING) AS ends_by
    FROM __android_monitor_contention_first_blocked
    WHERE blocking_utid IS NOT NULL),
  s AS (
    SELECT utid, ts, dur, state, blocked_function, iif(dur = -1, ts, ts + dur) AS end_ts,
           lag(iif(dur = -1, ts, ts + dur)) OVER (PARTITION BY utid ORDER BY ts) AS prev_end
    FROM thread_state
    WHERE utid IN (SELECT blocking_utid FROM c))
  SELECT c.id, max(c.ts, s.ts) AS ts, min(c.ts + c.dur, s.ts + s.dur) - max(c.ts, s.ts) AS dur,
         c.blocking_utid, s.blocked_function, s.state
  FROM c
  JOIN s
    ON s.utid = c.blocking_utid AND __span_join_overlaps(c.ts, c.dur, s.ts, s.dur)
   AND (c.ends_before IS NULL OR s.end_ts > c.ends_before)
   AND (s.prev_end IS NULL OR s.prev_end <= c.ends_by)
  ORDER BY c.blocking_utid, max(c.ts, s.ts);

CREATE VIEW android_monitor_contention_chain_thread_state_by_txn AS
  SELECT id, state AS thread_state, sum(dur) AS thread_state_dur,
         count(dur) AS thread_state_count
  FROM android_monitor_contention_chain_thread_state
  GROUP BY id, thread_state;

CREATE VIEW android_monitor_contention_chain_blocked_functions_by_txn AS
  SELECT id, blocked_function, sum(dur) AS blocked_function_dur,
         count(dur) AS blocked_function_count
  FROM android_monitor_contention_chain_thread_state
  WHERE blocked_function IS NOT NULL
  GROUP BY id, blocked_function;
