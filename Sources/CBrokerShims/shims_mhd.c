#include "shims_mhd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *broker_mhd_start(
    const char *host, uint16_t port, unsigned int flags, unsigned int connection_timeout,
    unsigned int connection_limit,
    MHD_AccessHandlerCallback access_handler, void *access_handler_context,
    MHD_RequestCompletedCallback request_completed, void *request_completed_context,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_context,
    int *error) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        *error = BROKER_MHD_START_BAD_HOST;
        return NULL;
    }
    if (connection_limit == 0) {
        connection_limit = FD_SETSIZE - 4; /* libmicrohttpd's own default */
    }
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, NULL, NULL, access_handler, access_handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_NOTIFY_COMPLETED, request_completed, request_completed_context,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_context,
        MHD_OPTION_END);
    *error = daemon == NULL ? BROKER_MHD_START_FAILED : BROKER_MHD_START_OK;
    return daemon;
}

uint16_t broker_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
