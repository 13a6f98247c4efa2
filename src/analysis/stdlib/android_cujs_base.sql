-- frameprobe's implementation of the Perfetto stdlib module android.cujs.base (v58.2), the
-- tables android.frame_blocking_calls.blocking_calls_aggregation reads: CUJ slices
-- (`J<NAME>` on an Android app's process track), their FrameTracker markers, the frames
-- inside each CUJ and its doFrame slices. Same names, columns and semantics.
--
-- android_jank_cuj follows upstream base.sql (the CUJ slice's columns, its name, state from the
-- FT#end / FT#cancel markers, the FrameTracker values; cancelled CUJs, and those without state
-- markers shorter than 4 ms, left out). Not provided: android_jank_cuj_layer_name.

-- (frameprobe) The CUJ markers join every CUJ with the slices inside it by time: without
-- an index on slice ts, one scan of all slices per CUJ, which grows with the square of the
-- trace. ensure_module creates it first (Module::joins_slices_by_ts).

CREATE TABLE IF NOT EXISTS _jank_cujs_slices AS
SELECT
  row_number() OVER (ORDER BY ts, slice.id) AS cuj_id,
  process.upid AS upid,
  process.name AS process_name,
  slice.id AS slice_id,
  slice.name AS cuj_slice_name,
  ts, dur, ts + dur AS ts_end
FROM slice
JOIN process_track ON slice.track_id = process_track.id
JOIN process USING (upid)
WHERE slice.name GLOB 'J<*>'
  AND (process.name GLOB 'com.google.android*' OR process.name GLOB 'com.android.*')
  AND dur > 0;

CREATE TABLE IF NOT EXISTS _cuj_state_markers AS
SELECT
  cuj.cuj_id,
  upid,
  CASE
    WHEN m.name GLOB '*FT#begin*' THEN 'begin'
    WHEN m.name GLOB '*FT#deferMonitoring*' THEN 'deferMonitoring'
    WHEN m.name GLOB '*FT#end*' THEN 'end'
    WHEN m.name GLOB '*FT#cancel*' THEN 'cancel'
    WHEN m.name GLOB '*FT#layerId*' THEN 'layerId'
    WHEN m.name GLOB '*#UIThread' THEN 'UIThread'
    ELSE 'other'
  END AS marker_type,
  m.name AS marker_name,
  thread_track.utid AS utid
FROM _jank_cujs_slices AS cuj
LEFT JOIN slice AS m ON m.ts >= cuj.ts AND m.ts < cuj.ts_end
LEFT JOIN track AS marker_track ON marker_track.id = m.track_id
LEFT JOIN thread_track ON m.track_id = thread_track.id
WHERE m.name GLOB (cuj.cuj_slice_name || '#FT#*')
  OR (marker_track.name = cuj_slice_name AND m.name GLOB 'FT#*')
  OR m.name = (cuj.cuj_slice_name || '#UIThread');
-- (frameprobe) Looked up per CUJ (instant events, state): without it, a scan of every
-- CUJ's markers for each CUJ.
CREATE INDEX IF NOT EXISTS _cuj_state_markers_cuj ON _cuj_state_markers(cuj_id);

CREATE TABLE IF NOT EXISTS _cuj_instant_events AS
SELECT
  cuj_id,
  cuj.upid,
  max(CASE WHEN csm.marker_name GLOB '*layerId#*'
      THEN CAST(str_split(csm.marker_name, 'layerId#', 1) AS INTEGER) END) AS layer_id,
  max(CASE WHEN csm.marker_name GLOB '*beginVsync#*'
      THEN CAST(str_split(csm.marker_name, 'beginVsync#', 1) AS INTEGER) END) AS begin_vsync,
  max(CASE WHEN csm.marker_name GLOB '*endVsync#*'
      THEN CAST(str_split(csm.marker_name, 'endVsync#', 1) AS INTEGER) END) AS end_vsync,
  max(CASE WHEN csm.marker_type = 'UIThread' THEN csm.utid END) AS ui_thread
FROM _jank_cujs_slices AS cuj
LEFT JOIN _cuj_state_markers AS csm USING (cuj_id)
GROUP BY cuj_id;

CREATE VIEW IF NOT EXISTS _all_frames_in_cuj AS
SELECT
  substr(cuj.cuj_slice_name, 3, length(cuj.cuj_slice_name) - 3) AS cuj_name,
  cuj.upid,
  cuj.process_name,
  cie.layer_id AS cuj_layer_id,
  frame.layer_id,
  frame.layer_name,
  frame.frame_id,
  frame.do_frame_id,
  frame.expected_frame_timeline_id,
  cuj.cuj_id,
  frame.ts AS frame_ts,
  frame.dur AS dur,
  (frame.ts + frame.dur) AS ts_end,
  ui_thread_utid,
  frame.render_thread_utid
FROM android_frames_layers AS frame
JOIN _cuj_instant_events AS cie
  ON frame.ui_thread_utid = cie.ui_thread AND frame.layer_id IS NOT NULL
JOIN _jank_cujs_slices AS cuj ON cie.cuj_id = cuj.cuj_id
WHERE frame_id >= begin_vsync
  AND frame_id <= end_vsync
  AND ((frame.ts >= cuj.ts AND frame.ts <= cuj.ts_end)
    OR ((frame.ts + frame.dur) >= cuj.ts AND (frame.ts + frame.dur) <= cuj.ts_end));

-- One row per frame id and CUJ: columns that are the same for every layer of the frame are
-- taken from any row, as upstream's GROUP BY does.
CREATE TABLE IF NOT EXISTS _android_distinct_frames_in_cuj AS
SELECT
  row_number() OVER (PARTITION BY cuj_id ORDER BY min(frame_ts)) AS frame_idx,
  count(*) OVER (PARTITION BY cuj_id) AS frame_cnt,
  cuj_name, upid, cuj_layer_id, layer_id, layer_name, process_name, frame_id, do_frame_id,
  expected_frame_timeline_id, cuj_id, ui_thread_utid, render_thread_utid,
  min(frame_ts) AS frame_ts,
  max(ts_end) AS ts_end,
  (max(ts_end) - min(frame_ts)) AS dur
FROM _all_frames_in_cuj
GROUP BY frame_id, cuj_id;

-- (frameprobe) Each CUJ looks up the doFrames of its UI thread's track by start time. Joined
-- the other way round, every doFrame of a process met every CUJ of it, which grows with the
-- square of the trace. The lower bound on ts follows from ts_end >= cuj.ts and the longest
-- doFrame, so no row is lost.
CREATE TABLE IF NOT EXISTS _jank_cuj_do_frame_spans AS
SELECT slice.id, frame_id AS vsync, do_frame.ts, upid, slice.ts + slice.dur AS ts_end,
  slice.track_id
FROM android_frames_choreographer_do_frame AS do_frame
JOIN slice USING (id);
CREATE INDEX IF NOT EXISTS _jank_cuj_do_frame_spans_key
  ON _jank_cuj_do_frame_spans(track_id, ts);

CREATE TABLE IF NOT EXISTS _android_jank_cuj_do_frames AS
SELECT cuj.cuj_id, cie.ui_thread, thread.utid, do_frame.*
FROM _jank_cujs_slices AS cuj
LEFT JOIN _cuj_instant_events AS cie USING (cuj_id, upid)
CROSS JOIN thread ON thread.upid = cuj.upid
CROSS JOIN thread_track USING (utid)
CROSS JOIN _jank_cuj_do_frame_spans AS do_frame
  ON do_frame.track_id = thread_track.id
  AND do_frame.ts <= cuj.ts_end
  AND do_frame.ts >= cuj.ts - (SELECT max(ts_end - ts) FROM _jank_cuj_do_frame_spans)
  AND do_frame.ts_end >= cuj.ts
WHERE ((cie.ui_thread IS NULL AND thread.is_main_thread) OR (cie.ui_thread = thread.utid))
  AND vsync > 0
  AND (vsync >= begin_vsync OR begin_vsync IS NULL)
  AND (vsync <= end_vsync OR end_vsync IS NULL)
-- The rows in the order of the doFrame-first join: the doFrame table's, then by CUJ.
ORDER BY do_frame.track_id, do_frame.id, cuj.cuj_id;

-- One row per jank CUJ that was not cancelled, in time order.
CREATE TABLE IF NOT EXISTS android_jank_cuj AS
SELECT
  cuj.*,
  substr(cuj.cuj_slice_name, 3, length(cuj.cuj_slice_name) - 3) AS cuj_name,
  CASE
    WHEN EXISTS (SELECT 1 FROM _cuj_state_markers AS csm
                 WHERE csm.cuj_id = cuj.cuj_id AND csm.marker_type = 'cancel') THEN 'canceled'
    WHEN EXISTS (SELECT 1 FROM _cuj_state_markers AS csm
                 WHERE csm.cuj_id = cuj.cuj_id AND csm.marker_type = 'end') THEN 'completed'
    ELSE NULL
  END AS state,
  cie.ui_thread,
  cie.layer_id,
  cie.begin_vsync,
  cie.end_vsync
FROM _jank_cujs_slices AS cuj
JOIN _cuj_instant_events AS cie USING (cuj_id)
WHERE state != 'canceled'
  -- Builds without state markers: a CUJ under 4 ms is taken as cancelled.
  OR (state IS NULL AND cuj.dur > 4e6)
ORDER BY ts;
