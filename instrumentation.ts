// Start the engine with the server: migrate, resume unfinished runs, re-arm their timers.
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getRuntime } = await import("./lib/runtime");
    await getRuntime();
  }
}
