import type { Db } from "../../lib/db/client";
import { deepResearch } from "./machine";

/** deep-research runs created on a UTC day (numbers the day's missions DR-YYYYMMDD-NNN). */
export async function missionsOn(db: Db, day: string): Promise<number> {
  const start = new Date(`${day}T00:00:00.000Z`);
  const end = new Date(start.getTime() + 86_400_000);
  return db.run.count({ where: { workflow: deepResearch.id, createdAt: { gte: start, lt: end } } });
}
