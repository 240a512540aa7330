-- AlterTable
ALTER TABLE "Review" ADD COLUMN     "assignedTo" TEXT,
ADD COLUMN     "decidedBy" TEXT,
ADD COLUMN     "dueAt" TIMESTAMP(3),
ADD COLUMN     "escalatedFrom" TEXT;

-- CreateTable
CREATE TABLE "UserGroup" (
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UserGroup_pkey" PRIMARY KEY ("userId","name")
);

-- CreateIndex
CREATE INDEX "UserGroup_name_idx" ON "UserGroup"("name");

-- CreateIndex
CREATE INDEX "Review_workflow_decidedAt_idx" ON "Review"("workflow", "decidedAt");

-- Backfill: decisions a replay repeated were the engine's, every other decision a person's
UPDATE "Review" SET "decidedBy" = CASE WHEN "replayedFrom" IS NOT NULL THEN 'engine' ELSE 'person' END WHERE "status" = 'decided';
