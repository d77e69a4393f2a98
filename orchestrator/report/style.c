/*
 * style.c: the one style sheet of devnet's pages (report.h).  What every
 * page shares is report_css; a page's own rules (the A/B page's legend and
 * notes, the history page's change marks) follow it, so that the pages
 * look alike by construction rather than by copy.
 */
#include "report/report.h"

const char report_css[] =
    "body{font:14px/1.45 -apple-system,'Segoe UI',Roboto,'DejaVu Sans',"
    "sans-serif;color:#1f2937;background:#f8fafc;margin:0}\n"
    "main{max-width:1140px;margin:0 auto;padding:24px 28px 48px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}\n"
    ".sub{color:#6b7280;margin:0 0 14px}\n"
    "th,td{padding:5px 10px;border-bottom:1px solid #e5e7eb;text-align:"
    "right;white-space:nowrap}\n"
    "td.l,th.l{text-align:left}\n"
    ".better{color:#047857;font-weight:600}.worse{color:#b91c1c;"
    "font-weight:600}\n"
    ".chart{background:#fff;margin:14px 0;padding:10px 12px 6px;"
    "box-shadow:0 1px 2px rgba(0,0,0,.06);border-radius:6px}\n"
    ".chart h3{font-size:15px;margin:0 0 2px}\n";

const char report_css_compare[] =
    ".note{background:#eef2ff;border-left:4px solid #6366f1;padding:8px 12px;"
    "margin:8px 0;border-radius:4px}\n"
    ".warn{background:#fff7ed;border-left:4px solid #f97316;padding:8px 12px;"
    "margin:6px 0;border-radius:4px}\n"
    "table{border-collapse:collapse;width:100%;background:#fff;"
    "box-shadow:0 1px 2px rgba(0,0,0,.06);font-variant-numeric:"
    "tabular-nums}\n"
    "th{background:#f1f5f9;font-weight:600;color:#374151}\n"
    ".muted,.undecided{color:#6b7280}.equivalent{color:#1d4ed8}"
    ".changed{color:#7c3aed}\n"
    ".headline{font-size:17px;font-weight:600;background:#fff;"
    "padding:10px 14px;border-left:4px solid #111827;border-radius:4px}\n"
    ".chart h3 .dir{color:#6b7280;font-weight:400;font-size:13px}"
    ".chart .d{color:#6b7280;font-size:12.5px;margin:0 0 4px}\n"
    ".legend span{display:inline-block;margin-right:16px;font-size:12.5px}\n"
    ".sw{display:inline-block;width:22px;height:10px;border-radius:2px;"
    "margin-right:6px;vertical-align:middle}\n"
    "svg text{font-family:inherit}\n"
    ".amark{font-size:12.5px;color:#4c1d95;margin:0 0 3px}\n"
    /* the verdict tables fit the page: long metric names break after
     * their underscores, tighter cells; too narrow a window scrolls the
     * table, not the page */
    ".tw{overflow-x:auto}\n"
    ".vt{font-size:13px}.vt th,.vt td{padding:5px 7px}\n"
    ".vt td.m{white-space:normal;overflow-wrap:break-word;min-width:8em}\n"
    /* an assertion's message quotes log lines: wrap it, not the page */
    ".asserts td{white-space:normal;overflow-wrap:anywhere;font-size:12.5px}"
    "\n"
    /* the gossip graph's tables: as wide as their numbers */
    ".graph table{width:auto;margin:8px 0}.graph details{margin:8px 0}\n";

const char report_css_history[] =
    "table{border-collapse:collapse;width:100%;background:#fff;"
    "font-variant-numeric:tabular-nums}\n"
    "th{background:#f1f5f9;font-weight:600}\n"
    ".changed{color:#92400e;font-weight:600}\n"
    ".d{color:#6b7280;font-size:12.5px;margin:0 0 4px}\n"
    "svg text{font-size:11px;fill:#4b5563}\n"
    "code{font-size:12.5px}\n";

const char report_css_live[] =
    "table{border-collapse:collapse;width:100%;background:#fff;"
    "box-shadow:0 1px 2px rgba(0,0,0,.06);font-variant-numeric:"
    "tabular-nums}\n"
    "th{background:#f1f5f9;font-weight:600;color:#374151}\n"
    ".up{color:#047857}.down,.crashed{color:#b91c1c;font-weight:600}"
    ".paused{color:#92400e;font-weight:600}.done{color:#6b7280}\n"
    ".na{color:#6b7280;font-size:12px}\n"
    ".clock{font-size:28px;font-weight:600;font-variant-numeric:"
    "tabular-nums}\n"
    ".pill{display:inline-block;padding:1px 8px;border-radius:9px;"
    "background:#e5e7eb;margin-right:4px;font-size:12.5px}\n"
    ".pill.running{background:#dbeafe}.pill.ok{background:#dcfce7}"
    ".pill.failed,.pill.interrupted{background:#fee2e2}\n"
    ".grid{display:grid;grid-template-columns:1fr 1fr;gap:14px}\n"
    ".events{max-height:260px;overflow:auto;font-size:12.5px}\n"
    "svg text{font-family:inherit}\n";
