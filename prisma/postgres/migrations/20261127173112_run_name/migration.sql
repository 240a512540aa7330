-- Run.name: what the run is called (POST /api/runs { name }, a definition's run_name, or the workflow's rule), set once when it starts.
-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "name" TEXT;
