from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("assistant", "0002_chat_turn_stopped_unique_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="chatsession",
            name="closed_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When memory ended the session (its summary written).",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="chatsession",
            name="close_requested_at",
            field=models.DateTimeField(
                blank=True,
                help_text="When the shopper closed the panel; set with no closed_at, the close "
                "is pending (memory could not be reached) and is retried on their next healthy "
                "turn.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="chatsession",
            name="close_note",
            field=models.CharField(
                blank=True, help_text="What happened when the visit was closed.", max_length=300
            ),
        ),
    ]
