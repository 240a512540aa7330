-- AlterTable
ALTER TABLE "Task" ADD COLUMN "consumedAt" BIGINT;

-- CreateIndex
CREATE INDEX "Task_status_consumedAt_idx" ON "Task"("status", "consumedAt");
