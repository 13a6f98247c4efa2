-- frameprobe's implementation of the Perfetto stdlib module
-- android.frame_blocking_calls.blocking_calls_aggregation (v58.2): the blocking calls of the
-- UI thread and RenderThread per frame inside CUJs. Same tables, columns and semantics.

-- `_extended_frame_boundary` is built first, by android_cuj_frame_boundary.sql.

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
