#pragma once
/* libcurl helpers Swift cannot express: curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic,
   so each argument type gets its own typed entry point. All return libcurl's own codes unchanged, for the
   Swift side's single `curlCheck` funnel. */
#include <curl/curl.h>

/* curl_easy_setopt with a `long` argument (CURLOPTTYPE_LONG options). */
CURLcode broker_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
/* curl_easy_setopt with a `curl_off_t` argument (CURLOPTTYPE_OFF_T options). */
CURLcode broker_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value);
/* curl_easy_setopt with a C string; libcurl copies strings (except CURLOPT_POSTFIELDS, which is not used). */
CURLcode broker_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
/* curl_easy_setopt with a data pointer (CURLOPTTYPE_OBJECTPOINT / CBPOINT / SLISTPOINT options). */
CURLcode broker_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
/* curl_easy_setopt with a write or header callback (CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION). */
CURLcode broker_curl_easy_setopt_write_callback(CURL *easy, CURLoption option, curl_write_callback callback);
/* curl_easy_getinfo for CURLINFO_LONG values. */
CURLcode broker_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
/* curl_multi_setopt with a `long` argument. */
CURLMcode broker_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
/* curl_multi_setopt with a data pointer (CURLMOPT_SOCKETDATA, CURLMOPT_TIMERDATA). */
CURLMcode broker_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value);
/* curl_multi_setopt(CURLMOPT_SOCKETFUNCTION): libcurl says which sockets to watch for what. */
CURLMcode broker_curl_multi_setopt_socket_callback(CURLM *multi, curl_socket_callback callback);
/* curl_multi_setopt(CURLMOPT_TIMERFUNCTION): libcurl says when to call it back for its timeouts. */
CURLMcode broker_curl_multi_setopt_timer_callback(CURLM *multi, curl_multi_timer_callback callback);
/* curl_multi_socket_action for libcurl's own timeouts (CURL_SOCKET_TIMEOUT, a macro Swift cannot see). */
CURLMcode broker_curl_multi_socket_timeout(CURLM *multi, int *running);
/* curl_easy_setopt(CURLOPT_READFUNCTION): libcurl pulls an upload's bytes (an SMTP message) through it. */
CURLcode broker_curl_easy_setopt_read_callback(CURL *easy, curl_read_callback callback);
