// What can be painted over a workflow's diagram (issue 33): tags on states, edges drawn in a
// path's colour, one state outlined — two runs' paths, an evaluation's agreement per review, where
// a migration's runs land, what changed between two versions. Keys are state ids and edge ids
// ("source->target"); what sits inside a collapsed group is painted on the group.

/** a: run A's path, b: run B's, both; good / bad / warn / info: a verdict or a note */
export type OverlayTone = "a" | "b" | "both" | "good" | "bad" | "warn" | "info";

export interface OverlayTag {
  label: string;
  tone: OverlayTone;
  /** the tooltip (default: the label) */
  title?: string;
}

export interface DiagramOverlay {
  nodes?: Record<string, OverlayTag[]>;
  edges?: Record<string, "a" | "b" | "both">;
  outline?: string | null;
  /** edge id → how many times runs took it (the fleet overlay): edges drawn thicker with traffic */
  traffic?: Record<string, number>;
}
