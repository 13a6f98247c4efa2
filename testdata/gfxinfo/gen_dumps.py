#!/usr/bin/env python3
"""Writes the hand-made `dumpsys gfxinfo ... framestats` dumps in this directory.

Each frame is spelled out below (offsets in microseconds from its IntendedVsync). The
"printed" summaries are what HWUI's rules give for those frames, worked out by hand in
tests/gfxinfo_cli.rs, which holds the arithmetic; for the Android 6, 9 and 11 dumps they
follow the JankTracker of that release (see docs/gfxinfo.md), so they can differ from what
frameprobe recomputes with the Android 12+ rules.

Run from the crate root: python3 testdata/gfxinfo/gen_dumps.py
"""

import os

OUT = os.path.dirname(os.path.abspath(__file__))
T = 5_000_000_000_000  # 5000 s of uptime
MS = 1_000_000
INT64_MAX = 9223372036854775807

OLD = ["Flags", "IntendedVsync", "Vsync", "OldestInputEvent", "NewestInputEvent",
       "HandleInputStart", "AnimationStart", "PerformTraversalsStart", "DrawStart",
       "SyncQueued", "SyncStart", "IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted"]
H14 = OLD
H16 = OLD + ["DequeueBufferDuration", "QueueBufferDuration"]
H17 = H16 + ["GpuCompleted"]
NEW_UI = ["Flags", "FrameTimelineVsyncId", "IntendedVsync", "Vsync", "InputEventId",
          "HandleInputStart", "AnimationStart", "PerformTraversalsStart", "DrawStart"]
NEW_RT = ["SyncQueued", "SyncStart", "IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted",
          "DequeueBufferDuration", "QueueBufferDuration", "GpuCompleted", "SwapBuffersCompleted",
          "DisplayPresentTime"]
# Values are always in HWUI's enum order (deadline, start time, interval) ...
V22 = NEW_UI + ["FrameDeadline", "FrameStartTime", "FrameInterval"] + NEW_RT
V23 = V22 + ["CommandSubmissionCompleted"]
V24 = NEW_UI + ["FrameDeadline", "FrameStartTime", "FrameInterval", "WorkloadTarget"] + NEW_RT \
    + ["CommandSubmissionCompleted"]
V25 = NEW_UI + ["FrameDeadline", "FrameStartTime", "FrameInterval", "WorkloadTarget",
                "AnimationTime"] + NEW_RT + ["CommandSubmissionCompleted"]


def pitfall(names):
    """... but Android 12-14 print the names FrameInterval, FrameStartTime in that order."""
    out = list(names)
    i, j = out.index("FrameStartTime"), out.index("FrameInterval")
    out[i], out[j] = out[j], out[i]
    return out


LAYOUTS = {
    14: (H14, H14),
    16: (H16, H16),
    17: (H17, H17),
    22: (pitfall(V22), V22),
    23: (pitfall(V23), V23),
    "23r": (V23, V23),
    24: (V24, V24),
    25: (V25, V25),
}

# Stage offsets (µs from IntendedVsync) of a quick 10 ms-interval frame.
BASE = dict(V=0, HI=500, AS=600, PT=700, DS=1000, SQ=2000, SS=2000, IS=2500, SB=4000,
            CSC=4200, SBC=4500, FC=5000, GC=5000, DL=10000)
KEYS = dict(V="Vsync", HI="HandleInputStart", AS="AnimationStart", PT="PerformTraversalsStart",
            DS="DrawStart", SQ="SyncQueued", SS="SyncStart", IS="IssueDrawCommandsStart",
            SB="SwapBuffers", CSC="CommandSubmissionCompleted", SBC="SwapBuffersCompleted",
            FC="FrameCompleted", GC="GpuCompleted", DL="FrameDeadline")


def frame(iv, vsync_id, interval, flags=0, absolute=None, dequeue=100_000, wt=None, **us):
    stages = dict(BASE)
    stages.update(us)
    f = {"Flags": flags, "IntendedVsync": iv, "FrameTimelineVsyncId": vsync_id,
         "InputEventId": 0, "OldestInputEvent": INT64_MAX, "NewestInputEvent": 0,
         "DequeueBufferDuration": dequeue, "QueueBufferDuration": 200_000,
         "DisplayPresentTime": 0, "FrameInterval": interval}
    for k, off in stages.items():
        f[KEYS[k]] = iv + off * 1000
    f["FrameStartTime"] = f["Vsync"] + 300_000
    f["AnimationTime"] = f["AnimationStart"]
    f["WorkloadTarget"] = wt if wt is not None else interval
    f.update(absolute or {})
    return f


def block(layout, frames):
    names, values = LAYOUTS[layout]
    lines = ["---PROFILEDATA---", ",".join(names) + ","]
    for f in frames:
        lines.append(",".join(str(f[v]) for v in values) + ",")
    lines.append("---PROFILEDATA---")
    return "\n".join(lines)


def label(i):
    """ProfileData::frameTimeForFrameCountIndex / frameTimeForSlowFrameCountIndex."""
    if i >= 57:
        return (i - 57) * 50 + 150
    i += 5
    if i > 32:
        i += i - 32
    if i > 48:
        i += i - 48 + 1
    return i


def histogram(counts):
    return "HISTOGRAM: " + " ".join(f"{label(i)}ms={counts.get(label(i), 0)}" for i in range(154))


def gpu_histogram(counts):
    labels = [i + 1 for i in range(25)] + [4950]
    return "GPU HISTOGRAM: " + " ".join(f"{ms}ms={counts.get(ms, 0)}" for ms in labels)


def pct(n, total):
    return f"{(100.0 * n / total) if total else 0.0:.2f}%"


def summary(total, janky, legacy, pcts, types, hist, gpu_pcts=None, gpu_hist=None,
            since=T - 2_000 * MS, old=False):
    """HWUI's ProfileData::dump. `types`: Missed Vsync, High input latency, Slow UI thread,
    Slow bitmap uploads, Slow issue draw commands, Frame deadline missed, (legacy)."""
    names = ["Missed Vsync", "High input latency", "Slow UI thread", "Slow bitmap uploads",
             "Slow issue draw commands", "Frame deadline missed", "Frame deadline missed (legacy)"]
    out = [f"Stats since: {since}ns", f"Total frames rendered: {total}",
           f"Janky frames: {janky} ({pct(janky, total)})"]
    if legacy is not None:
        out.append(f"Janky frames (legacy): {legacy} ({pct(legacy, total)})")
    for p, v in zip([50, 90, 95, 99], pcts):
        if v is not None:
            out.append(f"{p}th percentile: {v}ms")
    for name, v in zip(names, types):
        if v is not None:
            out.append(f"Number {name}: {v}")
    if hist is not None:
        out.append(histogram(hist))
    if gpu_pcts is not None:
        for p, v in zip([50, 90, 95, 99], gpu_pcts):
            out.append(f"{p}th gpu percentile: {v}ms")
        out.append(gpu_histogram(gpu_hist))
    return "\n".join(out)


HEAD = "Applications Graphics Acceleration Info:\nUptime: 5010000 Realtime: 5010000\n"
HIERARCHY = """View hierarchy:

  {w}/android.view.ViewRootImpl@2f814af
  42 views, 64.00 kB of render nodes


Total ViewRootImpl   : 1
Total attached Views : 42
Total RenderNode     : 64.00 kB (used) / 96.00 kB (capacity)
"""


def modern_dump(pid, pkg, window, layout, frames, s, extra_windows=()):
    """Android 10+: process summary, then per window a Window: line, summary and block."""
    parts = [HEAD, f"** Graphics info for pid {pid} [{pkg}] **", "", s, "",
             "Pipeline=Skia (OpenGL)", "Profile data in ms:", ""]
    for w, lay, fr, ws in [(window, layout, frames, s)] + list(extra_windows):
        parts += [f"\t{w}/android.view.ViewRootImpl@2f814af (visibility=0)", f"Window: {w}", ws,
                  "", "", "", block(lay, fr), "", ""]
    parts.append(HIERARCHY.format(w=window))
    return "\n".join(parts)


def write(name, text):
    with open(os.path.join(OUT, name), "w", newline="\n") as f:
        f.write(text)


def main():
    I10 = 10 * MS
    APP = "com.example.app"
    MAIN = f"{APP}/{APP}.MainActivity"

    # ---- Android 13-14, 23 columns with the header pitfall -------------------------------
    a14 = [
        frame(T, 1001, I10, flags=1),
        frame(T + 10 * MS, 1002, I10, DS=6000, SQ=7000, SS=7500, IS=8000, SB=11000, CSC=11200,
              SBC=11500, FC=12000, GC=12000),
        frame(T + 20 * MS, 1003, I10, FC=14000, GC=14000, DL=20000),
        frame(T + 30 * MS, 1004, I10, V=1000, HI=1300, AS=1400, PT=1500, DS=2000, SQ=3000,
              SS=3000, IS=3500, SB=20000, CSC=20500, SBC=21000, FC=22000, GC=22000, DL=20000),
        frame(T + 60 * MS, 1005, I10, flags=4, SB=39000, CSC=39200, SBC=39500, FC=40000,
              GC=40000),
        frame(T + 70 * MS, 1006, I10, absolute={"FrameCompleted": 0, "GpuCompleted": 0}),
        frame(T + 80 * MS, 1007, I10,
              absolute={"FrameCompleted": 72057628414509155, "GpuCompleted": 0}),
        frame(T + 90 * MS, 1008, I10),
    ]
    s14 = summary(6, 2, 2, [14, 40, 40, 40], [1, 4, 1, 0, 1, 2, 1],
                  {5: 2, 11: 1, 14: 1, 22: 1, 40: 1}, [2, 11, 11, 11], {2: 3, 3: 1, 11: 1})
    text = modern_dump(5939, APP, MAIN, 23, a14, s14)
    write("a14_23col.txt", text)
    write("a15_23col_reordered.txt", modern_dump(5939, APP, MAIN, "23r", a14, s14))
    with open(os.path.join(OUT, "a14_23col_utf16le_crlf.txt"), "wb") as f:
        f.write(b"\xff\xfe" + text.replace("\n", "\r\n").encode("utf-16-le"))

    # ---- Android 6, 14 columns: no interval, deadline, GPU or dequeue columns -------------
    I60 = 16_666_667
    def f60(iv, **us):
        return frame(iv, 0, I60, **us)
    a6 = [
        f60(T, HI=1000, AS=1100, PT=1200, DS=2000, SQ=4000, SS=4000, IS=5000, SB=7000, FC=8000),
        f60(T + I60, HI=1000, AS=1000, PT=1000, DS=2000, SQ=4000, SS=4000, IS=5000, SB=18000,
            FC=20000),
        f60(T + 2 * I60, HI=1000, AS=1100, PT=1200, DS=2000, SQ=4000, SS=4000, IS=5000,
            SB=8000, FC=10000),
        f60(T + 4 * I60, HI=500, AS=600, PT=700, DS=2000, SQ=3000, SS=3000, IS=4000, SB=5000,
            FC=6000),
    ]
    s6 = summary(4, 1, None, [None, 20, 20, 20], [0, 0, 0, 0, 1, None, None], None,
                 since=T - 5_000 * MS)
    write("a6_14col.txt", "\n".join([
        HEAD, f"** Graphics info for pid 1234 [{APP}] **", "", s6, "",
        "Caches:", "Current memory usage / total memory usage (bytes):", "",
        "Profile data in ms:", "", f"\t{MAIN}/android.view.ViewRootImpl@5d5eb6 (visibility=0)",
        "\tDraw\tPrepare\tProcess\tExecute", "\t1.00\t0.17\t3.02\t1.35",
        "\t2.00\t0.20\t13.00\t2.00", "", block(14, a6), "", HIERARCHY.format(w=MAIN)]))

    # ---- Android 9, 16 columns: DequeueBufferDuration, no interval -----------------------
    a9 = [
        f60(T, HI=500, AS=600, PT=700, DS=1000, SQ=1500, SS=1500, IS=2000, SB=16000, FC=18000,
            dequeue=5_000_000),
        f60(T + I60, HI=500, AS=600, PT=700, DS=1000, SQ=1500, SS=1500, IS=2000, SB=5000,
            FC=6000),
    ]
    s9 = summary(2, 1, None, [18, 18, 18, 18], [0, None, 0, 0, 1, None, None], None)
    write("a9_16col.txt", "\n".join([
        HEAD, f"** Graphics info for pid 2345 [{APP}] **", "", s9, "", "Profile data in ms:",
        "", f"\t{MAIN}/android.view.ViewRootImpl@5d5eb6 (visibility=0)", "",
        block(16, a9), "", HIERARCHY.format(w=MAIN)]))

    # ---- Android 11, 17 columns: GpuCompleted, no interval or deadline --------------------
    I120 = 8_333_333
    a11 = [
        frame(T, 0, I120, HI=300, AS=400, PT=500, DS=1000, SQ=2000, SS=2000, IS=2500, SB=5000,
              FC=7000, GC=9000),
        frame(T + I120, 0, I120, HI=300, AS=400, PT=500, DS=1000, SQ=2000, SS=2000, IS=2500,
              SB=4000, FC=5000, GC=6000),
    ]
    s11 = summary(2, 0, None, [7, 7, 7, 7], [0, 0, 0, 0, 0, 0, None], {5: 1, 7: 1})
    write("a11_17col.txt", modern_dump(3456, APP, MAIN, 17, a11, s11))

    # ---- Android 12, 22 columns: pitfall header, deadline 20 ms after IntendedVsync -------
    a12 = [
        frame(T, 2001, I60, HI=500, AS=600, PT=700, DS=1000, SQ=2000, SS=2000, IS=2500,
              SB=15000, SBC=17500, FC=18000, GC=18000, DL=20000),
        frame(T + I60, 2002, I60, HI=500, AS=600, PT=700, DS=8000, SQ=11000, SS=12000,
              IS=12500, SB=20000, SBC=21000, FC=24000, GC=25000, DL=20000),
    ]
    s12 = summary(2, 1, 2, [23, 23, 23, 23], [0, 2, 1, 0, 0, 1, 0], {18: 1, 23: 1},
                  [6, 6, 6, 6], {4: 1, 6: 1})
    write("a12_22col.txt", modern_dump(4567, APP, MAIN, 22, a12, s12))

    # ---- newer AOSP, 24 columns (WorkloadTarget): a Davey, then a stuffed frame -----------
    a24 = [
        frame(T, 3001, I10, SB=790000, CSC=790200, SBC=795000, FC=800000, GC=800000),
        frame(T + 800 * MS, 3002, I10, FC=15000, GC=15000, DL=20000),
    ]
    s24 = summary(2, 1, 1, [800, 800, 800, 800], [0, 2, 0, 0, 1, 1, 1], {15: 1, 800: 1},
                  [12, 12, 12, 12], {11: 1, 12: 1})
    write("aosp_24col.txt", modern_dump(5678, APP, MAIN, 24, a24, s24))

    # ---- newest AOSP, 25 columns (AnimationTime) -----------------------------------------
    def quick(layout_ids):
        return [
            frame(T, layout_ids, I10, HI=300, AS=400, PT=500, DS=600, SQ=1000, SS=1000,
                  IS=1500, SB=3000, CSC=3200, SBC=3500, FC=4000, GC=4000),
            frame(T + I10, layout_ids + 1, I10, HI=300, AS=400, PT=500, DS=600, SQ=1000,
                  SS=1000, IS=4000, SB=9000, CSC=9200, SBC=9500, FC=11000, GC=11000),
        ]
    s25 = summary(2, 1, 0, [11, 11, 11, 11], [0, 2, 0, 1, 0, 1, 0], {5: 1, 11: 1},
                  [3, 3, 3, 3], {2: 1, 3: 1})
    write("aosp_25col.txt", modern_dump(6789, APP, MAIN, 25, quick(4001), s25))

    # ---- whole-device dump: three processes, one without windows -------------------------
    empty = summary(0, 0, 0, [4950] * 4, [0] * 7, {}, [4950] * 4, {})
    other = "com.example.other"
    s_other = summary(1, 0, 0, [5, 5, 5, 5], [0, 1, 0, 0, 0, 0, 0], {5: 1}, [2, 2, 2, 2], {2: 1})
    device = "\n".join([
        HEAD,
        "** Graphics info for pid 100 [com.example.idle] **",
        "Profile data in ms:", "",
        "\tcom.example.idle/com.example.idle.Main/android.view.ViewRootImpl@1720d3b (visibility=8)",
        "View hierarchy:", "", "",
        modern_dump(4242, APP, MAIN, 23, quick(5001), s25,
                    extra_windows=[("Toast", 23, [], empty)]).replace(HEAD, ""),
        modern_dump(4343, other, f"{other}/{other}.Main", 23, quick(6001)[:1],
                    s_other).replace(HEAD, ""),
    ])
    write("device_multi.txt", device)

    # ---- damaged input --------------------------------------------------------------------
    good = quick(7001)
    n23, v23 = LAYOUTS[23]
    def row(f):
        return ",".join(str(f[v]) for v in v23) + ","
    truncated = ",".join(row(good[0]).split(",")[:10])
    non_numeric = row(good[0]).replace(str(good[0]["SyncStart"]), "12x", 1)
    extra = row(good[0]) + "5,"
    vendor = ",".join(n23[:-1] + ["MetaDataFps"]) + ","
    no_iv = ",".join(n for n in n23 if n != "IntendedVsync") + ","
    bad = "\n".join([
        HEAD, f"** Graphics info for pid 999 [{APP}] **", "", "Profile data in ms:", "",
        "Window: W1 damaged rows",
        "---PROFILEDATA---", ",".join(n23) + ",", row(good[0]), truncated, non_numeric, extra,
        row(good[1]), "---PROFILEDATA---", "",
        "Window: W2 vendor column",
        "---PROFILEDATA---", vendor, row(good[0]), "---PROFILEDATA---", "",
        "Window: W3 no IntendedVsync",
        "---PROFILEDATA---", no_iv, "1,2,3,", "---PROFILEDATA---", "",
        "Window: W4 cut short",
        "---PROFILEDATA---", ",".join(n23) + ",", row(good[0]),
    ]) + "\n"
    write("bad_input.txt", bad)

    write("no_profiledata.txt", "\n".join([
        HEAD, f"** Graphics info for pid 1955 [{APP}] **", "",
        summary(12, 1, 2, [8, 12, 16, 20], [0, 3, 1, 0, 0, 1, 0], {8: 12}), "",
        "Profile data in ms:", "", f"\t{MAIN}/android.view.ViewRootImpl@1634b91 (visibility=0)",
        f"Window: {MAIN}", summary(12, 1, 2, [8, 12, 16, 20], [0, 3, 1, 0, 0, 1, 0], {8: 12}),
        "", HIERARCHY.format(w=MAIN)]))


if __name__ == "__main__":
    main()
