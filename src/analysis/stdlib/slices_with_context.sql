-- frameprobe's implementation of the Perfetto stdlib module slices.with_context: slices
-- with their thread or process context, same names and columns as trace_processor v58.2.
-- The thread's process is a LEFT JOIN (upstream pre-joins thread and process the same way).

CREATE VIEW thread_slice AS
  SELECT s.id, s.ts, s.dur, s.category, s.name, s.track_id, tt.name AS track_name,
         t.name AS thread_name, t.utid, t.tid, t.is_main_thread, p.name AS process_name,
         p.upid, p.pid, s.depth, s.parent_id, s.arg_set_id, s.thread_ts, s.thread_dur
  FROM slice s
  JOIN thread_track tt ON s.track_id = tt.id
  JOIN thread t USING (utid)
  LEFT JOIN process p ON p.upid = t.upid;

CREATE VIEW process_slice AS
  SELECT s.id, s.ts, s.dur, s.category, s.name, s.track_id, pt.name AS track_name,
         p.name AS process_name, p.upid, p.pid, s.depth, s.parent_id, s.arg_set_id,
         s.thread_ts, s.thread_dur
  FROM slice s
  JOIN process_track pt ON s.track_id = pt.id
  JOIN process p ON p.upid = pt.upid;

CREATE VIEW thread_or_process_slice AS
  SELECT id, ts, dur, category, name, track_id, track_name, thread_name, utid, tid,
         process_name, upid, pid, depth, parent_id, arg_set_id
  FROM thread_slice
  UNION ALL
  SELECT id, ts, dur, category, name, track_id, track_name, NULL, NULL, NULL,
         process_name, upid, pid, depth, parent_id, arg_set_id
  FROM process_slice;
