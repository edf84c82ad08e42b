#pragma once
/* libmicrohttpd helpers Swift cannot express: MHD_start_daemon and MHD_get_daemon_info are variadic. */
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Why broker_mhd_start returned NULL. */
enum broker_mhd_start_error {
    BROKER_MHD_START_OK = 0,
    /* `host` is neither a numeric IPv4 nor a numeric IPv6 address. */
    BROKER_MHD_START_BAD_HOST = 1,
    /* MHD_start_daemon failed (port in use, no permission, out of resources); `errno` may say more. */
    BROKER_MHD_START_FAILED = 2,
};

/* MHD_start_daemon bound to the numeric address `host` (IPv4 or IPv6; MHD_USE_IPv6 is added for IPv6, MHD_USE_DUAL_STACK for "::") and
   `port` (0 = ephemeral), with the given flags, an idle-connection timeout in seconds, a connection limit
   (0 = libmicrohttpd's default), an accept policy (may be NULL) and three callbacks: the access handler,
   MHD_OPTION_NOTIFY_COMPLETED and MHD_OPTION_NOTIFY_CONNECTION (either notifier may be NULL). `strict` is
   MHD_OPTION_STRICT_FOR_CLIENT's level. Returns NULL and sets `*error` on failure. */
struct MHD_Daemon *broker_mhd_start(
    const char *host, uint16_t port, unsigned int flags, unsigned int connection_timeout,
    unsigned int connection_limit, int strict,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_context,
    MHD_AccessHandlerCallback access_handler, void *access_handler_context,
    MHD_RequestCompletedCallback request_completed, void *request_completed_context,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_context,
    int *error);

/* Writes the numeric text of `address` (AF_INET or AF_INET6; an IPv4-mapped IPv6 address as its IPv4
   address) into `out` (at least 64 bytes). Returns 0, or -1 for another family or a NULL address. */
int broker_format_address(const struct sockaddr *address, char *out, size_t out_size);

/* The connection's peer address (MHD_CONNECTION_INFO_CLIENT_ADDRESS) as text, like broker_format_address. */
int broker_mhd_client_address(struct MHD_Connection *connection, char *out, size_t out_size);

/* The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), or -1. */
int broker_mhd_connection_fd(struct MHD_Connection *connection);

/* The connection's socket context (MHD_CONNECTION_INFO_SOCKET_CONTEXT): what the connection notifier
   stored, or NULL. */
void *broker_mhd_socket_context(struct MHD_Connection *connection);

/* The port the daemon is bound to (MHD_DAEMON_INFO_BIND_PORT), or 0 when libmicrohttpd cannot tell. */
uint16_t broker_mhd_bound_port(struct MHD_Daemon *daemon);
