#include "shims_mhd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>
#include <netinet/in.h>
#include <string.h>

/* Fills `v4` or `v6` from the numeric `host` and `port`; returns the family, or 0 for another text. */
static int broker_parse_address(const char *host, uint16_t port, struct sockaddr_in *v4, struct sockaddr_in6 *v6) {
    memset(v4, 0, sizeof *v4);
    memset(v6, 0, sizeof *v6);
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return AF_INET;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return AF_INET6;
    }
    return 0;
}

int broker_listen_socket(const char *host, uint16_t port, uint16_t *bound_port, int *error) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    int family = broker_parse_address(host, port, &v4, &v6);
    if (family == 0) {
        *error = BROKER_MHD_START_BAD_HOST;
        return -1;
    }
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        *error = errno;
        return -2;
    }
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (family == AF_INET6) {
        /* "::" means every address, IPv4 ones too (as in nginx's and most servers' "[::]"): a dual-stack socket.
           A specific IPv6 address stays IPv6 only. */
        int v6only = IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr) ? 0 : 1;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    }
    const struct sockaddr *address = family == AF_INET ? (const struct sockaddr *)&v4 : (const struct sockaddr *)&v6;
    socklen_t length = family == AF_INET ? (socklen_t)sizeof v4 : (socklen_t)sizeof v6;
    if (bind(fd, address, length) != 0 || listen(fd, SOMAXCONN) != 0) {
        *error = errno;
        close(fd);
        return -2;
    }
    struct sockaddr_storage bound;
    socklen_t bound_length = sizeof bound;
    memset(&bound, 0, sizeof bound);
    *bound_port = port;
    if (getsockname(fd, (struct sockaddr *)&bound, &bound_length) == 0) {
        *bound_port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&bound)->sin_port
                                              : ((struct sockaddr_in6 *)&bound)->sin6_port);
    }
    *error = 0;
    return fd;
}

struct MHD_Daemon *broker_mhd_start(
    const char *host, int listen_socket, unsigned int flags, unsigned int connection_timeout,
    unsigned int connection_limit, int strict,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
    MHD_AccessHandlerCallback access_handler, void *access_handler_context,
    MHD_RequestCompletedCallback request_completed, void *request_completed_context,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_context,
    int *error) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    int family = broker_parse_address(host, 0, &v4, &v6);
    if (family == 0) {
        *error = BROKER_MHD_START_BAD_HOST;
        return NULL;
    }
    if (family == AF_INET6) {
        flags |= IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    }
    if (connection_limit == 0) {
        connection_limit = FD_SETSIZE - 4; /* libmicrohttpd's own default */
    }
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, 0, accept_policy, accept_policy_context, access_handler, access_handler_context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
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
