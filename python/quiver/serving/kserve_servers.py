"""KServe's model server with the address, TLS, token and limits of a Security: KServe 0.21 binds REST to
0.0.0.0 and gRPC to [::] without TLS or interceptors of ours, so its start() is done here with its own
REST and gRPC servers, bound and guarded as asked. Imported only once KServe may read sys.argv."""
from __future__ import annotations

import asyncio
from concurrent import futures
from typing import Any, List

from grpc import StatusCode, aio
from kserve import ModelServer
from kserve.model_server import FASTAPI_APP_IMPORT_STRING, app, args
from kserve.protocol.grpc import grpc_predict_v2_pb2_grpc
from kserve.protocol.grpc.interceptors import ExceptionToStatusInterceptor, LoggingInterceptor
from kserve.protocol.grpc.servicer import InferenceServicer
from kserve.protocol.rest.server import RESTServer

from .errors import ServingError
from .security import Guard, Security, grpc_token_interceptor


class ModelControlOff:
    """KServe's model repository extension with load and unload refused: one unauthenticated request
    would otherwise take a model away until the server restarts."""

    async def load(self, model_name: str) -> None:
        raise ServingError(f"model control is off: {model_name!r} cannot be loaded (quiver serve --model-control)",
                           StatusCode.PERMISSION_DENIED)

    async def unload(self, model_name: str) -> None:
        raise ServingError(f"model control is off: {model_name!r} cannot be unloaded (quiver serve --model-control)",
                           StatusCode.PERMISSION_DENIED)


class _GuardedGrpcServer:
    """The v2 gRPC service on the Security's address: TLS when it has certificates, the token checked
    first, messages up to its request limit."""

    def __init__(self, port: int, server: ModelServer, security: Security) -> None:
        self.port = port
        self.model_server = server
        self.security = security
        self._server: Any = None

    async def start(self, max_workers: int) -> None:
        s = self.security
        interceptors: List[Any] = [LoggingInterceptor(), ExceptionToStatusInterceptor()]
        if s.token is not None:
            interceptors.insert(0, grpc_token_interceptor(s))
        self._server = aio.server(futures.ThreadPoolExecutor(max_workers=max_workers), interceptors=interceptors,
                                  options=[("grpc.max_receive_message_length", s.max_request_bytes),
                                           ("grpc.max_send_message_length", args.grpc_max_send_message_length)])
        servicer = InferenceServicer(self.model_server.dataplane, self.model_server.model_repository_extension)
        grpc_predict_v2_pb2_grpc.add_GRPCInferenceServiceServicer_to_server(servicer, self._server)
        address = f"[{s.host}]:{self.port}" if ":" in s.host else f"{s.host}:{self.port}"
        if s.tls:
            import grpc

            assert s.tls_cert is not None and s.tls_key is not None
            with open(s.tls_key, "rb") as key, open(s.tls_cert, "rb") as cert:
                credentials = grpc.ssl_server_credentials([(key.read(), cert.read())])
            self._server.add_secure_port(address, credentials)
        else:
            self._server.add_insecure_port(address)
        await self._server.start()
        await self._server.wait_for_termination()

    async def stop(self, sig: Any = None) -> None:
        if self._server is not None:
            await self._server.stop(grace=self.model_server.grace_period)


class GuardedModelServer(ModelServer):  # type: ignore[misc]  # kserve is untyped
    """ModelServer serving one REST process and the gRPC server as `security` says."""

    def __init__(self, security: Security, **kwargs: Any) -> None:
        super().__init__(ssl_certfile=security.tls_cert, ssl_keyfile=security.tls_key, workers=1, **kwargs)
        self.http_port = kwargs["http_port"]  # KServe moves the default port to 8443 under TLS; ours stays
        self.security = security
        if not security.model_control:
            self.model_repository_extension = ModelControlOff()
        app.add_middleware(Guard, security=security)

    def start(self, models: List[Any]) -> None:
        self._register_and_check_atleast_one_model_is_ready(models)
        self._rest_server = RESTServer(
            FASTAPI_APP_IMPORT_STRING, self.dataplane, self.model_repository_extension, self.http_port,
            access_log_format=self.access_log_format, workers=1, grace_period=self.grace_period,
            event_loop=self.event_loop, timeout_keep_alive=self.timeout_keep_alive,
            ssl_certfile=self.ssl_certfile, ssl_keyfile=self.ssl_keyfile)
        self._rest_server.config.host = self.security.host
        self.servers.append(self._rest_server.start())
        self._grpc_server = _GuardedGrpcServer(self.grpc_port, self, self.security)
        self.servers.append(self._grpc_server.start(self.max_threads))
        self.setup_event_loop()
        self.register_signal_handler()
        asyncio.run(self._serve())
