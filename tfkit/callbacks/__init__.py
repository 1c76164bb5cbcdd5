"""Callbacks: code that runs at the hooks of ``fit``, ``evaluate`` and ``predict``.

stop = tfkit.callbacks.EarlyStopping(monitor="val_loss", patience=2)
history = model.fit(x, y, validation_split=0.2, epochs=20, callbacks=[stop])
history.history["val_loss"]
"""

from tfkit.callbacks.backup_and_restore import BackupAndRestore
from tfkit.callbacks.callback import Callback
from tfkit.callbacks.callback_list import CallbackList
from tfkit.callbacks.csv_logger import CSVLogger
from tfkit.callbacks.early_stopping import EarlyStopping
from tfkit.callbacks.history import History
from tfkit.callbacks.lambda_callback import LambdaCallback
from tfkit.callbacks.learning_rate_scheduler import LearningRateScheduler
from tfkit.callbacks.model_checkpoint import ModelCheckpoint
from tfkit.callbacks.monitor import MonitorCallback
from tfkit.callbacks.progbar import Progbar
from tfkit.callbacks.progbar_logger import ProgbarLogger
from tfkit.callbacks.reduce_lr_on_plateau import ReduceLROnPlateau
from tfkit.callbacks.remote_monitor import RemoteMonitor
from tfkit.callbacks.swap_ema_weights import SwapEMAWeights
from tfkit.callbacks.tensorboard import TensorBoard
from tfkit.callbacks.terminate_on_nan import TerminateOnNaN

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "MonitorCallback",
    "Progbar",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "RemoteMonitor",
    "SwapEMAWeights",
    "TensorBoard",
    "TerminateOnNaN",
]
