"use client";
// The workflow's diagram with the fleet painted on it; a click on a state opens the runs now in it.
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import { WorkflowDiagram } from "@/components/diagram/workflow-diagram";
import type { LayoutPack } from "@/lib/graph/layout";
import type { Fleet } from "@/lib/fleet/fleet";
import { fleetOverlay } from "@/lib/fleet/overlay";

export function FleetDiagram({ layout, fleet, alerts, className, fitScreen }: { layout: LayoutPack; fleet: Fleet; alerts?: Record<string, string>; className?: string; fitScreen?: boolean }) {
  const router = useRouter();
  const overlay = useMemo(() => fleetOverlay(fleet), [fleet]);
  return <WorkflowDiagram layout={layout} alerts={alerts} overlay={overlay} onStateClick={(id) => router.push(`/?workflow=${encodeURIComponent(fleet.workflow)}&state=${encodeURIComponent(id)}`)} className={className} fitScreen={fitScreen} />;
}
