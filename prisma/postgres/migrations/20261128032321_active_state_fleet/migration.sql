-- AlterTable
ALTER TABLE "ActiveState" ADD COLUMN     "since" TIMESTAMP(3),
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'running',
ADD COLUMN     "version" INTEGER,
ADD COLUMN     "workflow" TEXT NOT NULL DEFAULT '';

-- Each row gets its run's workflow, version pin (as the fleet's counters key it: 0 unless the input
-- pins a whole number; null for a replay or an evaluation run), status, and when the run entered the
-- state (Run.entered, epoch ms by state id: a group's own time, else its active leaves' earliest)
UPDATE "ActiveState" a SET
    "workflow" = r."workflow",
    "version" = CASE WHEN r."replayOf" IS NOT NULL THEN NULL
        WHEN r."input" LIKE '{%' AND jsonb_typeof(r."input"::jsonb -> 'definitionVersion') = 'number'
             AND (r."input"::jsonb ->> 'definitionVersion')::numeric = trunc((r."input"::jsonb ->> 'definitionVersion')::numeric)
        THEN (r."input"::jsonb ->> 'definitionVersion')::numeric::integer
        ELSE 0 END,
    "status" = r."status",
    "since" = (SELECT to_timestamp(t."ms" / 1000.0) AT TIME ZONE 'UTC' FROM (SELECT COALESCE(
        (SELECT (e."value" #>> '{}')::numeric FROM jsonb_each(CASE WHEN r."entered" LIKE '{%' THEN r."entered"::jsonb ELSE '{}'::jsonb END) e
         WHERE e."key" = a."state" AND jsonb_typeof(e."value") = 'number'),
        (SELECT MIN((e."value" #>> '{}')::numeric) FROM jsonb_array_elements_text(CASE WHEN r."state" LIKE '[%' THEN r."state"::jsonb ELSE '[]'::jsonb END) l("leaf")
         JOIN jsonb_each(CASE WHEN r."entered" LIKE '{%' THEN r."entered"::jsonb ELSE '{}'::jsonb END) e ON e."key" = l."leaf"
         WHERE (l."leaf" = a."state" OR left(l."leaf", length(a."state") + 1) = a."state" || '.') AND jsonb_typeof(e."value") = 'number')
    ) AS "ms") t WHERE t."ms" IS NOT NULL)
FROM "Run" r
WHERE r."id" = a."runId";

-- CreateIndex
CREATE INDEX "ActiveState_workflow_version_state_since_status_idx" ON "ActiveState"("workflow", "version", "state", "since", "status");
