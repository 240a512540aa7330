-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "failedStates" TEXT,
ADD COLUMN     "forkOf" TEXT,
ADD COLUMN     "forkSeq" INTEGER,
ADD COLUMN     "retries" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "waitingSince" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "Snapshot" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "first" INTEGER NOT NULL,
    "snapshot" TEXT NOT NULL,
    "context" TEXT NOT NULL,
    "timers" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Snapshot_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "AlertRule" (
    "id" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "windowMs" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertRule_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL,
    "ruleId" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "message" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "openedAt" TIMESTAMP(3) NOT NULL,
    "resolvedAt" TIMESTAMP(3),

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AlertRule_workflow_idx" ON "AlertRule"("workflow");

-- CreateIndex
CREATE INDEX "Alert_status_workflow_idx" ON "Alert"("status", "workflow");

-- CreateIndex
CREATE INDEX "Alert_ruleId_status_idx" ON "Alert"("ruleId", "status");

-- CreateIndex
CREATE INDEX "Run_waitingSince_createdAt_idx" ON "Run"("waitingSince", "createdAt");

-- CreateIndex
CREATE INDEX "Run_retries_status_createdAt_idx" ON "Run"("retries", "status", "createdAt");

-- CreateIndex
CREATE INDEX "Run_status_failedStates_idx" ON "Run"("status", "failedStates");

-- CreateIndex
CREATE INDEX "Run_forkOf_idx" ON "Run"("forkOf");

-- Backfill the run list's filter columns for runs that existed before them
UPDATE "Run" SET "waitingSince" = (SELECT MIN(v."createdAt") FROM "Review" v WHERE v."runId" = "Run"."id" AND v."status" = 'pending');
UPDATE "Run" SET "retries" = (SELECT COUNT(*) FROM "Transition" t WHERE t."runId" = "Run"."id" AND (t."event" = 'RETRY' OR lower(t."reason") LIKE 'retry %' OR lower(t."reason") = 'retry' OR lower(t."reason") LIKE '%retried%'));
UPDATE "Run" SET "failedStates" = '|' || coalesce("error"::jsonb ->> 'state', (SELECT string_agg(f.value, '|') FROM "Transition" t, jsonb_array_elements_text(t."from"::jsonb) f WHERE t."runId" = "Run"."id" AND t."seq" = "Run"."seq"), '') || '|' || coalesce((SELECT string_agg(s.value, '|') FROM jsonb_array_elements_text("Run"."state"::jsonb) s), '') || '|' WHERE "status" = 'failed';
