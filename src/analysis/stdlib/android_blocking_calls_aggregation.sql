-- frameprobe's implementation of the Perfetto stdlib module
-- android.frame_blocking_calls.blocking_calls_aggregation (v58.2): the blocking calls of the
-- UI thread and RenderThread per frame inside CUJs. Same tables, columns and semantics.

-- A frame's extended boundary: from its start to the earliest of the next frame's start
-- and the first doFrame at or after its end (else its own end), so that calls crossing the
-- frame's end are not lost.
CREATE TABLE IF NOT EXISTS _extended_frame_boundary AS
WITH
  _frames_with_next AS (
    SELECT *, lead(frame_ts) OVER (PARTITION BY cuj_id ORDER BY frame_id) AS next_frame_start
    FROM _android_distinct_frames_in_cuj
  ),
  _frames_with_extension_options AS (
    SELECT
      fr.frame_id, fr.frame_ts AS ts, fr.ui_thread_utid, fr.render_thread_utid, fr.cuj_id,
      fr.cuj_name, fr.layer_id,
      (SELECT min(ts) FROM _android_jank_cuj_do_frames
       WHERE utid = fr.ui_thread_utid AND ts >= fr.ts_end AND ts <= fr.next_frame_start)
        AS next_do_slice_after_frame,
      fr.next_frame_start,
      fr.ts_end AS original_ts_end
    FROM _frames_with_next AS fr
  )
SELECT
  ts, ui_thread_utid, render_thread_utid, frame_id, layer_id, cuj_id, cuj_name,
  coalesce(min(next_do_slice_after_frame, next_frame_start), next_do_slice_after_frame,
    next_frame_start, original_ts_end) AS ts_end
FROM _frames_with_extension_options
ORDER BY frame_id;

-- Each blocking call of the frame's UI thread or RenderThread that starts or ends inside
-- the extended frame, clipped to it.
CREATE TABLE IF NOT EXISTS _blocking_calls_frame_cuj AS
SELECT
  min(bc.dur, frame.ts_end - bc.ts, bc.ts_end - frame.ts) AS dur,
  max(frame.ts, bc.ts) AS ts,
  bc.upid, bc.name, bc.process_name, bc.utid, frame.frame_id, frame.layer_id, cuj_id, cuj_name
FROM _android_critical_blocking_calls AS bc
JOIN _extended_frame_boundary AS frame ON bc.utid = frame.ui_thread_utid
WHERE (bc.ts >= frame.ts AND bc.ts <= frame.ts_end)
  OR (bc.ts_end >= frame.ts AND bc.ts_end <= frame.ts_end)
UNION ALL
SELECT
  min(bc.dur, frame.ts_end - bc.ts, bc.ts_end - frame.ts) AS dur,
  max(frame.ts, bc.ts) AS ts,
  bc.upid, bc.name, bc.process_name, bc.utid, frame.frame_id, frame.layer_id, cuj_id, cuj_name
FROM _android_critical_blocking_calls AS bc
JOIN _extended_frame_boundary AS frame
  ON bc.utid = frame.render_thread_utid AND bc.utid != frame.ui_thread_utid
WHERE (bc.ts >= frame.ts AND bc.ts <= frame.ts_end)
  OR (bc.ts_end >= frame.ts AND bc.ts_end <= frame.ts_end);
