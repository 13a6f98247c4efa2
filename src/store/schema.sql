-- Tables and views named and shaped like trace_processor's (see Perfetto's
-- perfetto_sql/stdlib/prelude/after_eof/*.sql). Row ids are assigned in trace_processor's
-- order, so queries without ORDER BY answer in the same order.

CREATE TABLE __intrinsic_process(
  id INTEGER PRIMARY KEY, pid INTEGER, name TEXT, start_ts INTEGER, end_ts INTEGER,
  parent_upid INTEGER, uid INTEGER, android_appid INTEGER, android_user_id INTEGER,
  cmdline TEXT, arg_set_id INTEGER, machine_id INTEGER);
CREATE VIEW process AS
  SELECT id, id AS upid, pid, name, start_ts, end_ts, parent_upid, uid, android_appid,
         android_user_id, cmdline, arg_set_id, machine_id
  FROM __intrinsic_process;

CREATE TABLE __intrinsic_thread(
  id INTEGER PRIMARY KEY, tid INTEGER, name TEXT, start_ts INTEGER, end_ts INTEGER,
  upid INTEGER, is_main_thread INTEGER, is_idle INTEGER, machine_id INTEGER,
  arg_set_id INTEGER);
CREATE VIEW thread AS
  SELECT id, id AS utid, tid, name, start_ts, end_ts, upid, is_main_thread, is_idle,
         machine_id, arg_set_id
  FROM __intrinsic_thread;

CREATE TABLE __intrinsic_track(
  id INTEGER PRIMARY KEY, name TEXT, type TEXT, event_type TEXT,
  dimension_arg_set_id INTEGER, parent_id INTEGER, source_arg_set_id INTEGER,
  machine_id INTEGER, counter_unit TEXT, track_group_id INTEGER,
  utid INTEGER, upid INTEGER, cpu INTEGER);
CREATE VIEW track AS
  SELECT id, name, type, dimension_arg_set_id, parent_id, source_arg_set_id, machine_id,
         track_group_id
  FROM __intrinsic_track;
CREATE VIEW thread_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid
  FROM __intrinsic_track WHERE event_type = 'slice' AND utid IS NOT NULL;
CREATE VIEW process_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid
  FROM __intrinsic_track WHERE event_type = 'slice' AND upid IS NOT NULL;
CREATE VIEW cpu_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, cpu
  FROM __intrinsic_track WHERE event_type = 'slice' AND cpu IS NOT NULL;
CREATE VIEW gpu_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, dimension_arg_set_id, machine_id,
         type AS scope, NULL AS description, NULL AS context_id
  FROM __intrinsic_track
  WHERE type IN ('drm_vblank', 'drm_sched_ring', 'drm_fence', 'mali_mcu_state',
                 'gpu_render_stage', 'vulkan_events', 'gpu_log', 'graphics_frame_event');
CREATE VIEW counter_track AS
  SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id,
         counter_unit AS unit, NULL AS description
  FROM __intrinsic_track WHERE event_type = 'counter';
CREATE VIEW cpu_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         NULL AS description, cpu
  FROM __intrinsic_track WHERE event_type = 'counter' AND cpu IS NOT NULL;
CREATE VIEW process_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         NULL AS description, upid
  FROM __intrinsic_track WHERE event_type = 'counter' AND upid IS NOT NULL;
CREATE VIEW thread_counter_track AS
  SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit,
         NULL AS description, utid
  FROM __intrinsic_track WHERE event_type = 'counter' AND utid IS NOT NULL;

CREATE TABLE __intrinsic_slice(
  id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER, track_id INTEGER, category TEXT,
  name TEXT, depth INTEGER, parent_id INTEGER, arg_set_id INTEGER, thread_ts INTEGER,
  thread_dur INTEGER, thread_instruction_count INTEGER, thread_instruction_delta INTEGER);
CREATE VIEW slice AS
  SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id, thread_ts,
         thread_dur, thread_instruction_count, thread_instruction_delta,
         category AS cat, id AS slice_id
  FROM __intrinsic_slice;
CREATE VIEW slices AS SELECT * FROM slice;
CREATE VIEW instant AS SELECT ts, track_id, name, arg_set_id FROM slice WHERE dur = 0;

CREATE TABLE __intrinsic_flow(
  id INTEGER PRIMARY KEY, slice_out INTEGER, slice_in INTEGER, trace_id INTEGER,
  arg_set_id INTEGER);
CREATE VIEW flow AS SELECT id, slice_out, slice_in, trace_id, arg_set_id FROM __intrinsic_flow;

CREATE TABLE __intrinsic_counter(
  id INTEGER PRIMARY KEY, ts INTEGER, track_id INTEGER, value REAL, arg_set_id INTEGER);
CREATE VIEW counter AS SELECT id, ts, track_id, value, arg_set_id FROM __intrinsic_counter;
CREATE VIEW counters AS
  SELECT v.*, t.name, t.unit FROM counter v JOIN counter_track t ON v.track_id = t.id;

CREATE TABLE __intrinsic_sched_slice(
  id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER, utid INTEGER, end_state TEXT,
  priority INTEGER, ucpu INTEGER);
CREATE VIEW sched AS
  SELECT id, ts, dur, ucpu AS cpu, utid, end_state, priority, ucpu, ts + dur AS ts_end
  FROM __intrinsic_sched_slice;
CREATE VIEW sched_slice AS
  SELECT id, ts, dur, cpu, utid, end_state, priority, ucpu FROM sched;

CREATE TABLE __intrinsic_thread_state(
  id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER, utid INTEGER, state TEXT,
  io_wait INTEGER, blocked_function TEXT, waker_utid INTEGER, waker_id INTEGER,
  irq_context INTEGER, ucpu INTEGER);
CREATE VIEW thread_state AS
  SELECT id, ts, dur, ucpu AS cpu, utid, state, io_wait, blocked_function, waker_utid,
         waker_id, irq_context, ucpu
  FROM __intrinsic_thread_state;

CREATE TABLE __intrinsic_spurious_sched_wakeup(
  id INTEGER PRIMARY KEY, ts INTEGER, thread_state_id INTEGER, irq_context INTEGER,
  utid INTEGER, waker_utid INTEGER);
CREATE VIEW spurious_sched_wakeup AS SELECT * FROM __intrinsic_spurious_sched_wakeup;

CREATE TABLE __intrinsic_args(
  id INTEGER PRIMARY KEY, arg_set_id INTEGER, flat_key TEXT, key TEXT, int_value INTEGER,
  string_value TEXT, real_value REAL, value_type TEXT);
CREATE VIEW args AS
  SELECT *, CASE value_type
      WHEN 'int' THEN CAST(int_value AS TEXT)
      WHEN 'uint' THEN CAST(int_value AS TEXT)
      WHEN 'string' THEN string_value
      WHEN 'real' THEN CAST(real_value AS TEXT)
      WHEN 'pointer' THEN printf('0x%x', int_value)
      WHEN 'bool' THEN (CASE WHEN int_value != 0 THEN 'true' ELSE 'false' END)
      ELSE NULL END AS display_value
  FROM __intrinsic_args;

CREATE TABLE expected_frame_timeline_slice(
  id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER, track_id INTEGER, category TEXT,
  name TEXT, depth INTEGER, parent_id INTEGER, arg_set_id INTEGER,
  display_frame_token INTEGER, surface_frame_token INTEGER, upid INTEGER, layer_name TEXT);
CREATE TABLE actual_frame_timeline_slice(
  id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER, track_id INTEGER, category TEXT,
  name TEXT, depth INTEGER, parent_id INTEGER, arg_set_id INTEGER,
  display_frame_token INTEGER, upid INTEGER, surface_frame_token INTEGER, layer_name TEXT,
  present_type TEXT, on_time_finish INTEGER, gpu_composition INTEGER, jank_type TEXT,
  jank_severity_type TEXT, prediction_type TEXT, jank_tag TEXT,
  jank_tag_experimental TEXT, jank_score REAL, latched_unsignaled_count INTEGER,
  addressable_unsignaled_latch_count INTEGER, latched_fence_state TEXT);

CREATE TABLE __frame_slice_extra(
  id INTEGER PRIMARY KEY, layer_name TEXT, frame_number INTEGER,
  queue_to_acquire_time INTEGER, acquire_to_latch_time INTEGER,
  latch_to_present_time INTEGER);
CREATE VIEW frame_slice AS
  SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id,
         s.arg_set_id, e.layer_name, e.frame_number, e.queue_to_acquire_time,
         e.acquire_to_latch_time, e.latch_to_present_time
  FROM __intrinsic_slice s
  JOIN __intrinsic_track t ON s.track_id = t.id
  LEFT JOIN __frame_slice_extra e ON e.id = s.id
  WHERE t.type = 'graphics_frame_event';

CREATE TABLE stats(
  name TEXT, idx INTEGER, severity TEXT, source TEXT, value INTEGER, description TEXT);
CREATE TABLE metadata(name TEXT, key_type TEXT, int_value INTEGER, str_value TEXT);

-- Perfetto's prelude: the trace's first and last timestamp (as trace_start() / trace_end()).
CREATE VIEW trace_bounds AS
SELECT trace_start() AS start_ts, trace_end() AS end_ts;
