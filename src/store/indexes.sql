-- Built after the load (cheaper than maintaining them row by row).
CREATE INDEX __slice_track ON __intrinsic_slice(track_id);
CREATE INDEX __counter_track ON __intrinsic_counter(track_id);
CREATE INDEX __sched_utid ON __intrinsic_sched_slice(utid);
CREATE INDEX __thread_state_utid ON __intrinsic_thread_state(utid);
CREATE INDEX __args_set ON __intrinsic_args(arg_set_id);
CREATE INDEX __thread_upid ON __intrinsic_thread(upid);
