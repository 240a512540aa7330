// The workflow page's extra panel: RecordMetrics per mode.
import type { Runtime } from "@/lib/runtime";
import { modeMetrics } from "@/lib/metrics/mode-metrics";
import { ModeMetricsPanel } from "@/components/modes/mode-metrics-panel";

export default async function ProcessingModesPanel({ rt }: { rt: Runtime }) {
  return <ModeMetricsPanel modes={await modeMetrics(rt.db)} />;
}
