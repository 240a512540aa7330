-- CreateTable
CREATE TABLE "ActiveState" (
    "state" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ActiveState_pkey" PRIMARY KEY ("runId","state")
);

-- CreateIndex
CREATE INDEX "ActiveState_state_createdAt_idx" ON "ActiveState"("state", "createdAt");

-- The live runs' active states: each leaf of Run.state (a JSON array of paths) and every group around it
INSERT INTO "ActiveState" ("state", "runId", "createdAt")
SELECT DISTINCT array_to_string(p."parts"[1:n], '.'), r."id", r."createdAt"
FROM "Run" r
CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN r."state" LIKE '[%' THEN r."state"::jsonb ELSE '[]'::jsonb END) AS l("leaf")
CROSS JOIN LATERAL (SELECT string_to_array(l."leaf", '.') AS "parts") p
CROSS JOIN LATERAL generate_series(1, cardinality(p."parts")) AS n
WHERE r."status" IN ('running', 'waiting') AND substr(r."id", 1, 9) <> 'imported-'
ON CONFLICT DO NOTHING;
