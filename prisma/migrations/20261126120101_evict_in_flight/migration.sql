-- Run.inFlight: how many effects the run has in flight, from its snapshot (the engine writes it
-- with every commit). A restart loads only runs with some; runs that wait for a person, an event
-- or a timer stay in the database until that arrives (lib/engine/evict.ts).
--
-- Added in place, not by redefining the table (that would renumber the rowids the free-text
-- index RunText is keyed by).
ALTER TABLE "Run" ADD COLUMN "inFlight" INTEGER NOT NULL DEFAULT 0;

-- Unfinished runs count the invoked children of their current snapshot that are still active.
UPDATE "Run" SET "inFlight" = (
  SELECT count(*) FROM "Snapshot" s, json_each(s."snapshot", '$.children') c
  WHERE s."runId" = "Run"."id" AND s."seq" = "Run"."seq"
    AND json_extract(c.value, '$.snapshot.status') = 'active' AND json_type(c.value, '$.src') = 'text'
) WHERE "status" IN ('running', 'waiting');

-- CreateIndex
CREATE INDEX "Run_inFlight_idx" ON "Run"("inFlight");
