/*
 * http.c: the only door to libcurl in devnet-probe (the http ready check
 * now; the Prometheus scrape will live here too).  Every function is
 * documented in probe.h.  One easy handle, reused, so connections and
 * DNS answers are kept between calls.
 */
#include <stdlib.h>

#include <curl/curl.h>

#include "probe.h"
#include "xalloc.h"

static CURL	*easy;

int
http_init(char **cause)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		*cause = dn_xstrdup("cannot initialise libcurl");
		return (-1);
	}
	easy = curl_easy_init();
	if (easy == NULL) {
		*cause = dn_xstrdup("cannot create a libcurl handle");
		curl_global_cleanup();
		return (-1);
	}
	return (0);
}

void
http_cleanup(void)
{
	if (easy == NULL)
		return;
	curl_easy_cleanup(easy);
	easy = NULL;
	curl_global_cleanup();
}

/* Body sink: a ready check only needs the status. */
static size_t
discard(char *ptr, size_t size, size_t nmemb, void *arg)
{
	(void)ptr;
	(void)arg;
	return (size * nmemb);
}

int
http_get_status(const char *url, int timeout_ms, long *status,
    char **cause)
{
	CURLcode	rc;

	if (easy == NULL) {
		*cause = dn_xstrdup("libcurl not initialised");
		return (-1);
	}
	curl_easy_reset(easy);
	curl_easy_setopt(easy, CURLOPT_URL, url);
	curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
	rc = curl_easy_perform(easy);
	if (rc != CURLE_OK) {
		*cause = dn_xasprintf("%s: %s", url, curl_easy_strerror(rc));
		return (-1);
	}
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, status);
	return (0);
}
