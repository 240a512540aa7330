// Start the engine with the server: migrate, resume unfinished runs, re-arm their timers. A
// server that cannot start its runtime (database unreachable, bad settings) exits instead of
// answering 500 forever, so that a supervisor sees it and restarts it. With
// OTEL_EXPORTER_OTLP_ENDPOINT set, traces start first (lib/telemetry; unset, nothing is loaded).
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { startTelemetry } = await import("./lib/telemetry");
    await startTelemetry();
    const { getRuntime } = await import("./lib/runtime");
    try {
      await getRuntime();
      // the diagrams' layouts, made in the layout thread while the server starts answering
      void import("./lib/graph").then((g) => g.warmLayouts());
    } catch (e) {
      console.error(`[switchyard] could not start: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    }
  }
}
