-- AlterTable
ALTER TABLE "Review" ADD COLUMN "replayedFrom" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "replay" TEXT;
ALTER TABLE "Run" ADD COLUMN "replayOf" TEXT;

-- CreateTable
CREATE TABLE "EffectOutcome" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "effect" TEXT NOT NULL,
    "inputHash" TEXT NOT NULL,
    "output" TEXT,
    "error" TEXT,
    "source" TEXT,
    "at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Eval" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workflow" TEXT NOT NULL,
    "candidate" TEXT NOT NULL,
    "cases" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "report" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "finishedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "EffectOutcome_runId_idx" ON "EffectOutcome"("runId");

-- CreateIndex
CREATE INDEX "Eval_workflow_createdAt_idx" ON "Eval"("workflow", "createdAt");

-- CreateIndex
CREATE INDEX "Run_replayOf_idx" ON "Run"("replayOf");
