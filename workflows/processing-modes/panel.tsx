// The workflow page's extra panel: RecordMetrics per mode.
import type { Runtime } from "@/lib/runtime";
import { modeMetrics } from "./mode-metrics";
import { ModeMetricsPanel } from "./mode-metrics-panel";

export default async function ProcessingModesPanel({ rt }: { rt: Runtime }) {
  return <ModeMetricsPanel modes={await modeMetrics(rt.db)} />;
}
