// Preloaded into a collector process (`node --import <this> cli.js run …`) to skew its wall clock
// the way a bad NTP step does: Date.now() returns the real time plus the offset in milliseconds
// written in the file named by JOBSIGHT_FAULTS_CLOCK_FILE, read at start and every 100 ms, so the
// test can step the clock of a running process forwards or backwards. Monotonic clocks
// (performance.now, timers) are left alone, as a real clock step leaves them.
import { readFileSync } from "node:fs";

const file = process.env.JOBSIGHT_FAULTS_CLOCK_FILE;
const realNow = Date.now.bind(Date);
let offsetMs = 0;

function readOffset() {
  if (!file) return;
  try {
    const value = Number(readFileSync(file, "utf8").trim());
    if (Number.isFinite(value)) offsetMs = value;
  } catch {
    // No file yet, or caught mid-replace: keep the last offset.
  }
}

readOffset();
setInterval(readOffset, 100).unref();
Date.now = () => realNow() + offsetMs;
