-- frameprobe's implementation of the Perfetto stdlib frame tables (modules
-- android.frames.timeline and android.frames.per_frame_metrics): same names, columns and
-- semantics. Created on demand (when a query includes a module or names one of the
-- tables) and materialized with indexes, as Perfetto materializes its PERFETTO TABLEs.

-- Frame ids are the second word of the slice name; 0 and -1 are not frame ids. Rows are in
-- trace_processor's scan order of thread_slice (thread track, then slice id): several
-- doFrames of one frame id (one per process) come out of the frame tables in that order.
CREATE TABLE android_frames_choreographer_do_frame AS
  SELECT id, frame_id, utid AS ui_thread_utid, upid, ts
  FROM (SELECT id, CAST(str_split(name, ' ', 1) AS INT) AS frame_id, utid, upid, ts, track_id
        FROM thread_slice WHERE name GLOB 'Choreographer#doFrame*')
  WHERE frame_id != 0 AND frame_id != -1
  ORDER BY track_id, id;
CREATE INDEX __do_frame_key ON android_frames_choreographer_do_frame(frame_id, upid);

CREATE TABLE android_frames_draw_frame AS
  SELECT id, frame_id, utid AS render_thread_utid, upid
  FROM (SELECT id, CAST(str_split(name, ' ', 1) AS INT) AS frame_id, utid, upid, track_id
        FROM thread_slice WHERE name GLOB 'DrawFrame*')
  WHERE frame_id != 0 AND frame_id != -1
  ORDER BY track_id, id;
CREATE INDEX __draw_frame_key ON android_frames_draw_frame(frame_id, upid);

CREATE TABLE __act_by_layer AS
  SELECT CAST(name AS INT) AS frame_id, CAST(str_split(layer_name, '#', 1) AS INTEGER) AS layer_id,
         layer_name, id AS slice_id, ts, dur, upid
  FROM actual_frame_timeline_slice;
CREATE INDEX __act_by_layer_key ON __act_by_layer(frame_id, upid);

CREATE TABLE __exp_by_process AS
  SELECT CAST(name AS INT) AS frame_id, upid, id FROM expected_frame_timeline_slice;
CREATE INDEX __exp_by_process_key ON __exp_by_process(frame_id, upid);

-- The CPU span of a frame: doFrame start to the end of the DrawFrame of the same id.
CREATE TABLE __cpu_span AS
  SELECT CAST(d.frame_id AS INT) AS frame_id, ds.ts AS ts, (rs.ts + rs.dur) - ds.ts AS dur
  FROM android_frames_choreographer_do_frame d
  JOIN android_frames_draw_frame r USING (frame_id, upid)
  JOIN slice ds ON ds.id = d.id
  JOIN slice rs ON rs.id = r.id;
CREATE INDEX __cpu_span_key ON __cpu_span(frame_id);

-- Devices without FrameTimeline: each main-thread doFrame owns the DrawFrames that start
-- before the process's next doFrame. The DrawFrames are indexed by process and start, and
-- read with the doFrames outermost, so that each doFrame reads only its own: a plain join
-- compares every pair in a process (8,000 frames of one app took 3 s, 4,000 took 0.8 s).
CREATE TABLE __draw_frames_maxsdk28 AS
  SELECT id, ts, dur, ts + dur AS ts_end, utid, upid FROM thread_slice WHERE name = 'DrawFrame';
CREATE INDEX __draw_frames_maxsdk28_key ON __draw_frames_maxsdk28(upid, ts);

CREATE TABLE __frames_maxsdk28 AS
  WITH ui AS (
    SELECT id, ts, utid, upid,
           lead(ts, 1, trace_end()) OVER (PARTITION BY upid ORDER BY ts) AS next_ts
    FROM thread_slice WHERE is_main_thread = 1 AND name = 'Choreographer#doFrame')
  SELECT row_number() OVER () AS frame_id, ui.ts,
         max(rt.ts_end) OVER (PARTITION BY ui.id) - ui.ts AS dur,
         ui.id AS do_frame_id, rt.id AS draw_frame_id, rt.utid AS render_thread_utid,
         ui.utid AS ui_thread_utid, ui.upid, process.name AS process_name, 'maxsdk28' AS sdk
  FROM ui CROSS JOIN __draw_frames_maxsdk28 rt
    ON ui.upid = rt.upid AND rt.ts >= ui.ts AND rt.ts < ui.next_ts
  JOIN process USING (upid)
  ORDER BY ui.ts;

CREATE TABLE android_frames_layers AS
  WITH with_timeline AS (
    SELECT frame_id, coalesce(act.ts, cpu.ts) AS ts, coalesce(act.dur, cpu.dur) AS dur,
           d.id AS do_frame_id, r.id AS draw_frame_id, r.render_thread_utid,
           d.ui_thread_utid, exp.upid AS upid, process.name AS process_name, 'after_28' AS sdk,
           act.slice_id AS actual_frame_timeline_id, exp.id AS expected_frame_timeline_id,
           act.layer_id, act.layer_name
    FROM android_frames_choreographer_do_frame d
    JOIN android_frames_draw_frame r USING (frame_id, upid)
    JOIN __cpu_span cpu USING (frame_id)
    JOIN process USING (upid)
    LEFT JOIN __act_by_layer act USING (frame_id, upid)
    LEFT JOIN __exp_by_process exp USING (frame_id, upid)
    ORDER BY frame_id),
  every AS (
    SELECT * FROM with_timeline
    UNION
    SELECT *, NULL, NULL, NULL, NULL FROM __frames_maxsdk28)
  SELECT CAST(frame_id AS INT) AS frame_id, ts, dur, ts + dur AS ts_end, do_frame_id, draw_frame_id,
         actual_frame_timeline_id, expected_frame_timeline_id, render_thread_utid,
         ui_thread_utid, layer_id, layer_name, upid, process_name
  FROM every
  WHERE sdk = iif((SELECT count(1) FROM actual_frame_timeline_slice) > 0, 'after_28', 'maxsdk28');

CREATE TABLE android_frames AS
  SELECT CAST(frame_id AS INT) AS frame_id, min(ts) AS ts, max(dur) AS dur, min(do_frame_id) AS do_frame_id,
         min(draw_frame_id) AS draw_frame_id,
         min(actual_frame_timeline_id) AS actual_frame_timeline_id,
         expected_frame_timeline_id, render_thread_utid, ui_thread_utid,
         count(DISTINCT actual_frame_timeline_id) AS actual_frame_timeline_count,
         1 AS expected_frame_timeline_count,
         count(DISTINCT draw_frame_id) AS draw_frame_count, upid, process_name
  FROM android_frames_layers
  GROUP BY frame_id, upid;
CREATE INDEX __android_frames_key ON android_frames(frame_id);

-- Per-frame metrics: frames are keyed by the token alone (across processes), as upstream.
CREATE TABLE __actual_by_frame_id AS
  SELECT CAST(name AS INT) AS frame_id, min(id) AS id, min(ts) AS ts, max(dur) AS dur,
         max(ts + dur) AS ts_end, count() AS count
  FROM actual_frame_timeline_slice GROUP BY 1;
CREATE INDEX __actual_by_frame_id_key ON __actual_by_frame_id(frame_id);

CREATE TABLE __expected_by_frame_id AS
  SELECT CAST(name AS INT) AS frame_id, id, count() AS count
  FROM expected_frame_timeline_slice GROUP BY 1;
CREATE INDEX __expected_by_frame_id_key ON __expected_by_frame_id(frame_id);

CREATE TABLE android_frames_overrun AS
  SELECT CAST(a.frame_id AS INT) AS frame_id, (av.ts + av.dur) - (ev.ts + ev.dur) AS overrun
  FROM __actual_by_frame_id a
  JOIN __expected_by_frame_id e USING (frame_id)
  JOIN slice av ON av.id = a.id
  JOIN slice ev ON ev.id = e.id;
CREATE INDEX __overrun_key ON android_frames_overrun(frame_id);

CREATE TABLE android_frames_ui_time AS
  SELECT CAST(frame_id AS INT) AS frame_id, dur AS ui_time
  FROM android_frames_choreographer_do_frame d JOIN slice USING (id)
  ORDER BY d.rowid;
CREATE INDEX __ui_time_key ON android_frames_ui_time(frame_id);

CREATE TABLE android_app_vsync_delay_per_frame AS
  WITH one_per_frame AS (
    SELECT frame_id, do_frame_id, actual_frame_timeline_id, expected_frame_timeline_id
    FROM android_frames GROUP BY 1)
  SELECT CAST(f.frame_id AS INT) AS frame_id, a.ts - e.ts AS app_vsync_delay
  FROM one_per_frame f
  JOIN slice e ON e.id = f.expected_frame_timeline_id
  JOIN slice a ON a.id = f.actual_frame_timeline_id;
CREATE INDEX __vsync_delay_key ON android_app_vsync_delay_per_frame(frame_id);

CREATE TABLE android_cpu_time_per_frame AS
  WITH rt AS (
    SELECT frame_id, sum(dur) AS draw_frame_dur
    FROM android_frames_draw_frame JOIN slice USING (id) GROUP BY frame_id),
  one_per_frame AS (
    SELECT frame_id, do_frame_id, actual_frame_timeline_id FROM android_frames GROUP BY 1)
  SELECT CAST(frame_id AS INT) AS frame_id, app_vsync_delay, ui.dur AS do_frame_dur, draw_frame_dur,
         app_vsync_delay + ui.dur + draw_frame_dur AS cpu_time
  FROM android_app_vsync_delay_per_frame
  JOIN rt USING (frame_id)
  JOIN one_per_frame f USING (frame_id)
  JOIN slice ui ON ui.id = f.do_frame_id;
CREATE INDEX __cpu_time_key ON android_cpu_time_per_frame(frame_id);

-- Without a timeline-based estimate, CPU time is the UI time plus 5 ms.
CREATE TABLE __estimated_cpu_time_per_frame AS
  SELECT CAST(u.frame_id AS INT) AS frame_id, iif(c.cpu_time IS NULL, u.ui_time + 5000000, c.cpu_time) AS cpu_time
  FROM android_frames_ui_time u
  LEFT JOIN android_cpu_time_per_frame c USING (frame_id)
  ORDER BY u.rowid;
CREATE INDEX __est_cpu_key ON __estimated_cpu_time_per_frame(frame_id);

CREATE TABLE android_frame_stats AS
  SELECT frame_id, overrun, cpu_time, ui_time,
         iif(overrun > 0, 1, NULL) AS was_jank,
         iif(cpu_time > 20000000, 1, NULL) AS was_slow_frame,
         iif(cpu_time > 50000000, 1, NULL) AS was_big_jank,
         iif(cpu_time > 200000000, 1, NULL) AS was_huge_jank
  FROM android_frames_overrun o
  JOIN android_frames_ui_time u USING (frame_id)
  JOIN __estimated_cpu_time_per_frame e USING (frame_id)
  -- trace_processor's nested loops: a frame's rows follow the doFrame order, UI time
  -- outermost; a query ordering by frame_id keeps this order for ties.
  ORDER BY frame_id, u.rowid, e.rowid;
