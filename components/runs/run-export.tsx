// Downloads for a run: the whole run as JSON (GET /api/runs/{id}/export?download=1) and, when
// the run has produced one, its report or output file.
export function RunExport({ runId, reportFile }: { runId: string; reportFile?: string | null }) {
  const link = "rounded-md bg-white px-3 py-1.5 text-sm ring-1 ring-slate-200 hover:bg-slate-50 dark:bg-slate-900 dark:ring-slate-700 dark:hover:bg-slate-800";
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="run-export">
      <a className={link} href={`/api/runs/${runId}/export?download=1`} download data-testid="export-json" title="The run, its transitions, reviews and files as one JSON document">
        Export JSON
      </a>
      {reportFile && (
        <a className={link} href={`/api/runs/${runId}/artifacts/${reportFile}?download=1`} download data-testid="export-report" title={reportFile}>
          Download report
        </a>
      )}
    </div>
  );
}
