// The workflow page's extra panel, also on the Settings page: the Context Manager this workflow searches and feeds.
import type { Runtime } from "@/lib/runtime";
import { CmPanel } from "./context-manager/cm-panel";

export default function SwissArmyPanel({ rt }: { rt: Runtime }) {
  return <CmPanel rt={rt} />;
}
