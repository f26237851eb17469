/* sitepack CLI: the files `sitepack report` embeds in its page, compiled into the binary at build time
 * (cmake/embed_assets.c, CMakeLists.txt "report assets"). Each array holds the file's bytes and a final NUL;
 * _len is the byte count without it. Versions, licences and SHA-256 of the libraries: third_party/README.md.
 * Not a public header. */
#ifndef SITEPACK_REPORT_ASSETS_H
#define SITEPACK_REPORT_ASSETS_H

#include <stddef.h>

extern const unsigned char sp_asset_chartjs[];  /* third_party/chartjs/chart.umd.min.js (Chart.js, MIT) */
extern const size_t sp_asset_chartjs_len;
extern const unsigned char sp_asset_3dmol[];    /* third_party/3dmol/3Dmol-min.js (3Dmol.js, BSD-3-Clause) */
extern const size_t sp_asset_3dmol_len;
extern const unsigned char sp_asset_page_js[];  /* src/app/report_html.js: the page's code */
extern const size_t sp_asset_page_js_len;
extern const unsigned char sp_asset_page_css[]; /* src/app/report_html.css: the page's style */
extern const size_t sp_asset_page_css_len;

#endif
