import os
import subprocess


def upload(bucket, path):
    subprocess.run(["/usr/bin/s5cmd", "cp", path, bucket], preexec_fn=os.setsid, check=True)  # warning: CUR101


def upload_grouped(bucket, path):
    return subprocess.Popen(["/usr/bin/s5cmd", "cp", path, bucket],
                            start_new_session=True)  # ok: CUR101
