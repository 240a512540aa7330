-- AlterTable
ALTER TABLE "Review" ADD COLUMN "assignedTo" TEXT;
ALTER TABLE "Review" ADD COLUMN "decidedBy" TEXT;
ALTER TABLE "Review" ADD COLUMN "dueAt" DATETIME;
ALTER TABLE "Review" ADD COLUMN "escalatedFrom" TEXT;

-- CreateTable
CREATE TABLE "UserGroup" (
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("userId", "name")
);

-- CreateIndex
CREATE INDEX "UserGroup_name_idx" ON "UserGroup"("name");

-- CreateIndex
CREATE INDEX "Review_workflow_decidedAt_idx" ON "Review"("workflow", "decidedAt");

-- Backfill: decisions a replay repeated were the engine's, every other decision a person's
UPDATE "Review" SET "decidedBy" = CASE WHEN "replayedFrom" IS NOT NULL THEN 'engine' ELSE 'person' END WHERE "status" = 'decided';
