-- Run.inFlight: how many effects the run has in flight, from its snapshot (the engine writes it
-- with every commit). A restart loads only runs with some; runs that wait for a person, an event
-- or a timer stay in the database until that arrives (lib/engine/evict.ts).
-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "inFlight" INTEGER NOT NULL DEFAULT 0;

-- Unfinished runs count the invoked children of their current snapshot that are still active.
UPDATE "Run" r SET "inFlight" = (
  SELECT count(*) FROM "Snapshot" s, jsonb_each(COALESCE(s."snapshot"::jsonb -> 'children', '{}'::jsonb)) c
  WHERE s."runId" = r."id" AND s."seq" = r."seq"
    AND c.value -> 'snapshot' ->> 'status' = 'active' AND jsonb_typeof(c.value -> 'src') = 'string'
) WHERE r."status" IN ('running', 'waiting');

-- CreateIndex
CREATE INDEX "Run_inFlight_idx" ON "Run"("inFlight");
