-- frameprobe's implementation of the Perfetto stdlib module android.garbage_collection
-- (table android_garbage_collection_events): ART's concurrent GC slices with their heap
-- sizes and the GC thread's time per thread state. Same names, columns and semantics as
-- trace_processor v58.2; its two SPAN_JOINs become joins on __span_join_overlaps
-- (src/analysis/span_join.rs). The process-level GC statistics, which need the startup
-- module, are not provided.

-- GC slices: depth-0 thread slices named '*concurrent*GC'. When the next depth-0 slice on
-- the track is a 'CompactionPhase' (or a background copying GC) its duration is added.
CREATE TABLE __gc_slice AS
  WITH concurrent AS (
    SELECT id AS gc_id, name AS gc_name,
           lead(name) OVER w AS compact_name,
           lead(dur) OVER w AS compact_dur,
           ts AS gc_ts,
           iif(dur = -1, trace_end() - ts, dur) AS gc_dur,
           ts, dur, tid, utid, pid, upid, thread_name, process_name
    FROM thread_slice
    WHERE depth = 0
    WINDOW w AS (PARTITION BY track_id ORDER BY ts))
  SELECT gc_id, gc_name, ts AS gc_ts, ts,
         gc_dur + iif(compact_name = 'CompactionPhase'
                      OR compact_name = 'Background concurrent copying GC', compact_dur, 0) AS gc_dur,
         gc_dur + iif(compact_name = 'CompactionPhase'
                      OR compact_name = 'Background concurrent copying GC', compact_dur, 0) AS dur,
         utid, tid, upid, pid, thread_name, process_name
  FROM concurrent
  WHERE gc_name GLOB '*concurrent*GC';

-- The process's 'Heap size (KB)' counter as spans lasting until the next value.
CREATE TABLE __gc_heap_counter AS
  SELECT c.ts,
         coalesce(lead(c.ts) OVER (PARTITION BY c.track_id ORDER BY c.ts), trace_end()) - c.ts AS dur,
         process.upid,
         CAST(c.value AS INT) AS value
  FROM counter c
  JOIN process_counter_track t ON c.track_id = t.id
  JOIN process USING (upid)
  WHERE t.name = 'Heap size (KB)';

-- The heap size after each GC: the value of the row following the GC's end among the
-- process's GC ends and heap samples (NULL when that row is another GC's end).
CREATE TABLE __gc_slice_with_final_heap AS
  WITH slice_and_heap AS (
    SELECT upid, gc_id, gc_ts + gc_dur AS ts, NULL AS value FROM __gc_slice
    UNION ALL
    SELECT upid, NULL AS gc_id, ts, value FROM __gc_heap_counter),
  next_heap AS (
    SELECT *, lead(value) OVER (PARTITION BY upid ORDER BY ts) AS last_value
    FROM slice_and_heap)
  SELECT g.*, n.last_value
  FROM __gc_slice g
  LEFT JOIN (SELECT gc_id, last_value FROM next_heap WHERE gc_id IS NOT NULL) n USING (gc_id);

-- Min and max heap over the GC: SPAN_JOIN with the heap counter by process, so a GC that
-- no heap sample overlaps is dropped. GCs of one process can overlap: the ends_before /
-- ends_by / prev_end conditions keep only the pairs SPAN_JOIN's single walk meets (see
-- src/analysis/span_join.rs). SQLite's two-argument min/max are NULL when last_value is.
CREATE TABLE __gc_slice_heap AS
  WITH g AS (
    SELECT *,
           max(iif(dur = -1, ts, ts + dur)) OVER (
             PARTITION BY upid ORDER BY ts
             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ends_before,
           max(iif(dur = -1, ts, ts + dur)) OVER (
             PARTITION BY upid ORDER BY ts ROWS UNBOUNDED PRECEDING) AS ends_by
    FROM __gc_slice_with_final_heap
    WHERE upid IS NOT NULL),
  h AS (
    SELECT upid, ts, dur, value, iif(dur = -1, ts, ts + dur) AS end_ts,
           lag(iif(dur = -1, ts, ts + dur)) OVER (PARTITION BY upid ORDER BY ts) AS prev_end
    FROM __gc_heap_counter)
  SELECT g.gc_ts AS ts, g.gc_dur AS dur, g.upid, g.gc_id, g.gc_name, g.gc_ts, g.gc_dur,
         g.utid, g.tid, g.pid, g.thread_name, g.process_name, g.last_value,
         CASE
           WHEN g.gc_name GLOB '*NativeAlloc*' THEN 'native_alloc'
           WHEN g.gc_name GLOB '*Alloc*' THEN 'alloc'
           WHEN g.gc_name GLOB '*young*' THEN 'young'
           WHEN g.gc_name GLOB '*CollectorTransition*' THEN 'collector_transition'
           WHEN g.gc_name GLOB '*Explicit*' THEN 'explicit'
           ELSE 'full'
         END AS gc_type,
         iif(g.gc_name GLOB '*mark compact*', 1, 0) AS is_mark_compact,
         max(max(h.value, g.last_value)) / 1e3 AS max_heap_mb,
         min(min(h.value, g.last_value)) / 1e3 AS min_heap_mb
  FROM g
  JOIN h
    ON h.upid = g.upid AND __span_join_overlaps(g.ts, g.dur, h.ts, h.dur)
   AND (g.ends_before IS NULL OR h.end_ts > g.ends_before)
   AND (h.prev_end IS NULL OR h.prev_end <= g.ends_by)
  GROUP BY g.gc_id
  ORDER BY g.gc_id;

-- SPAN_LEFT_JOIN of each GC with its thread's states: the time of each state inside the
-- GC. Time without a thread state counts in no column.
CREATE TABLE android_garbage_collection_events AS
  WITH pieces AS (
    SELECT g.gc_id, s.state, s.io_wait,
           min(g.ts + g.dur, s.ts + s.dur) - max(g.ts, s.ts) AS dur
    FROM __gc_slice_heap g
    JOIN thread_state s
      ON s.utid = g.utid AND __span_join_overlaps(g.ts, g.dur, s.ts, s.dur))
  SELECT g.tid, g.pid, g.utid, g.upid, g.thread_name, g.process_name, g.gc_type,
         g.is_mark_compact, g.max_heap_mb - g.min_heap_mb AS reclaimed_mb,
         g.min_heap_mb, g.max_heap_mb, g.gc_id, g.gc_ts, g.gc_dur,
         sum(iif(p.state = 'Running', p.dur, 0)) AS gc_running_dur,
         sum(iif(p.state = 'R' OR p.state = 'R+', p.dur, 0)) AS gc_runnable_dur,
         sum(iif(p.state = 'D' AND p.io_wait = 1, p.dur, 0)) AS gc_unint_io_dur,
         sum(iif(p.state = 'D' AND p.io_wait != 1, p.dur, 0)) AS gc_unint_non_io_dur,
         sum(iif(p.state = 'S', p.dur, 0)) AS gc_int_dur
  FROM __gc_slice_heap g
  LEFT JOIN pieces p USING (gc_id)
  GROUP BY g.gc_id
  ORDER BY g.gc_id;
