-- Run.name: what the run is called (POST /api/runs { name }, a definition's run_name, or the workflow's rule),
-- set once when it starts. Added in place (the free-text index RunText is keyed by the rowid).
-- AlterTable
ALTER TABLE "Run" ADD COLUMN "name" TEXT;
