-- frameprobe's implementation of the first table of the Perfetto stdlib module
-- android.frame_blocking_calls.blocking_calls_aggregation (v58.2), `_extended_frame_boundary`,
-- kept apart so that `analyze` can build it over the frame and CUJ slices alone and sum each
-- janky frame's blocking calls over Perfetto's boundary. Same table, columns and semantics.

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
