-- No query reads runs by (status, updatedAt), and every commit moved the run's entry in it
-- (updatedAt changes with each step): a write per step for nothing.
-- DropIndex
DROP INDEX "Run_status_updatedAt_idx";
