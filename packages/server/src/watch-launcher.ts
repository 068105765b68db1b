// How often a process looks for the launcher that started it.
const LAUNCHER_CHECK_MS = 1_000;

/**
 * Calls `gone` once the launcher (bin/launch.js) that started this process has died: it forwards
 * signals, but killed with one it cannot catch (SIGKILL, or a supervisor that kills only its own
 * child), it leaves this process re-parented and running: a server holding its port, an import
 * still writing.
 */
export function watchLauncher(gone: () => void): void {
  const launcher = Number(process.env.FOLIO_LAUNCHER_PID);
  // Read once: a process this one starts is no child of the launcher.
  delete process.env.FOLIO_LAUNCHER_PID;
  if (!launcher) return;
  if (process.ppid !== launcher) {
    // Only the launcher's own child watches it: not a process that a test or a script started
    // with an environment copied from one. Its own child finds it already gone when it was
    // killed while this process was loading.
    if (!exists(launcher)) gone();
    return;
  }
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    gone();
  }, LAUNCHER_CHECK_MS);
  timer.unref();
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
