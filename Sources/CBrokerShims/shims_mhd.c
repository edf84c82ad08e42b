#include "shims_mhd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *broker_mhd_start(
    const char *host, uint16_t port, unsigned int flags, unsigned int connection_timeout,
    unsigned int connection_limit, int strict,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
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
        /* "::" means every address, IPv4 ones too (as in nginx's and most servers' "[::]"): a dual-stack socket.
           A specific IPv6 address stays IPv6 only. */
        flags |= IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    } else {
        *error = BROKER_MHD_START_BAD_HOST;
        return NULL;
    }
    if (connection_limit == 0) {
        connection_limit = FD_SETSIZE - 4; /* libmicrohttpd's own default */
    }
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, port, accept_policy, accept_policy_context, access_handler, access_handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_STRICT_FOR_CLIENT, strict,
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

int broker_format_address(const struct sockaddr *address, char *out, size_t out_size) {
    if (address == NULL || out == NULL || out_size < 64) return -1;
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        return inet_ntop(AF_INET, &v4->sin_addr, out, (socklen_t)out_size) == NULL ? -1 : 0;
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
            return inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], out, (socklen_t)out_size) == NULL ? -1 : 0;
        }
        return inet_ntop(AF_INET6, &v6->sin6_addr, out, (socklen_t)out_size) == NULL ? -1 : 0;
    }
    return -1;
}

int broker_mhd_client_address(struct MHD_Connection *connection, char *out, size_t out_size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? -1 : broker_format_address(info->client_addr, out, out_size);
}

int broker_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void *broker_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}
