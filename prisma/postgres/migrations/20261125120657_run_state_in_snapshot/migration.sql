-- A run's current XState snapshot and context move from its Run row to its Snapshot row at the
-- run's seq: a step then appends that row instead of also rewriting (and re-TOASTing) the Run row.
--
-- 1. Every run gets (or updates) its Snapshot row at its own seq from the Run columns, which are
--    the newest (a commit without transitions updated them but wrote no Snapshot row). A new row
--    carries the run's pending timers, as the engine writes them ({ id, dueAt (epoch ms), event, seq }).
INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at")
SELECT r."id", r."seq", r."seq", r."snapshot", r."context",
  (SELECT COALESCE(json_agg(json_build_object('id', t."id", 'dueAt', (extract(epoch FROM t."dueAt") * 1000)::bigint, 'event', t."event"::json, 'seq', t."seq")), '[]'::json)::text
     FROM "Timer" t WHERE t."runId" = r."id"),
  r."updatedAt"
FROM "Run" r
ON CONFLICT ("runId","seq") DO UPDATE SET "snapshot" = excluded."snapshot", "context" = excluded."context";

-- 2. The columns themselves.
ALTER TABLE "Run" DROP COLUMN "context",
DROP COLUMN "snapshot";
