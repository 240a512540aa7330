-- AlterTable
ALTER TABLE "Review" ADD COLUMN     "replayedFrom" TEXT;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "replay" TEXT,
ADD COLUMN     "replayOf" TEXT;

-- CreateTable
CREATE TABLE "EffectOutcome" (
    "key" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "effect" TEXT NOT NULL,
    "inputHash" TEXT NOT NULL,
    "output" TEXT,
    "error" TEXT,
    "source" TEXT,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EffectOutcome_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Eval" (
    "id" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "candidate" TEXT NOT NULL,
    "cases" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "report" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Eval_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "EffectOutcome_runId_idx" ON "EffectOutcome"("runId");

-- CreateIndex
CREATE INDEX "Eval_workflow_createdAt_idx" ON "Eval"("workflow", "createdAt");

-- CreateIndex
CREATE INDEX "Run_replayOf_idx" ON "Run"("replayOf");
