"""Serving Quiver models over the Open Inference Protocol (v2: KServe, Triton and Seldon clients) on
KServe's Python model server: ``pip install 'quiver[serving]'``, then ``quiver serve PREFIX`` or::

    from quiver.serving import ModelSettings, serve
    serve([ModelSettings(prefix="/models/resnet18_v1", kind="image_classifier",
                         shapes={"data": [1, 3, 224, 224]})], http_port=8080, grpc_port=8081)

See docs/serving.rst for the settings file, the protocol's details and Kubernetes manifests."""
from .security import Security
from .settings import ModelSettings, load_settings
from .server import load_models, serve

__all__ = ["ModelSettings", "Security", "load_settings", "load_models", "serve"]
