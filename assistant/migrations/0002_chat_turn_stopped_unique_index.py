from django.db import migrations, models


def turns_renumber(apps, schema_editor):
    """Give turns that raced to the same index distinct numbers, in the order they were made.

    Runs before the constraint exists, so renumbering in place cannot collide.
    """
    ChatTurn = apps.get_model("assistant", "ChatTurn")
    sessions = (
        ChatTurn.objects.values("session_id")
        .annotate(n=models.Count("id"), distinct=models.Count("index", distinct=True))
        .filter(n__gt=models.F("distinct"))
        .values_list("session_id", flat=True)
    )
    for session_id in list(sessions):
        turns = list(
            ChatTurn.objects.filter(session_id=session_id).order_by("index", "created_at", "id")
        )
        for number, turn in enumerate(turns, start=1):
            turn.index = number
            turn.save(update_fields=["index"])


class Migration(migrations.Migration):
    dependencies = [
        ("assistant", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="chatturn",
            name="stopped",
            field=models.BooleanField(
                default=False,
                help_text="The shopper stopped this turn: nothing of it was remembered.",
            ),
        ),
        migrations.RunPython(turns_renumber, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="chatturn",
            constraint=models.UniqueConstraint(
                fields=("session", "index"), name="chat_turn_unique_index"
            ),
        ),
    ]
